import DBusKit

/// Why a ``GeoClueLocationSource`` failed: no system bus, no GeoClue on it, a client refused by GeoClue or its
/// agent, or a location that could not be read.
///
/// Compare ``code`` with the static codes; the message and the D-Bus error name say more.
///
/// ```swift
/// do {
///     for try await fix in source.fixes() { print(fix) }
/// } catch let error as GeoClueError where error.code == .accessDenied {
///     print("allow unotifyd in /etc/geoclue/geoclue.conf")
/// }
/// ```
public struct GeoClueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Kind: String, Sendable, Hashable {
            case noSystemBus, serviceUnavailable, accessDenied, timedOut, disconnected, invalidReply, failed
        }

        let kind: Kind

        /// The system bus could not be reached.
        public static let noSystemBus = Code(kind: .noSystemBus)
        /// GeoClue2 is not on the bus and cannot be started there.
        public static let serviceUnavailable = Code(kind: .serviceUnavailable)
        /// GeoClue2 refused the client: the desktop id is not allowed and no agent authorized it.
        public static let accessDenied = Code(kind: .accessDenied)
        /// GeoClue2 did not answer in time (version 2.6 does not answer `GetClient` while no agent is registered).
        public static let timedOut = Code(kind: .timedOut)
        /// The bus connection was lost.
        public static let disconnected = Code(kind: .disconnected)
        /// GeoClue2 answered with something that is not what its interface promises.
        public static let invalidReply = Code(kind: .invalidReply)
        /// Any other D-Bus error.
        public static let failed = Code(kind: .failed)

        public var description: String { kind.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The D-Bus error name behind the failure, such as `org.freedesktop.DBus.Error.AccessDenied`, if any.
    public var dbusErrorName: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure.
    ///   - message: The explanation.
    ///   - dbusErrorName: The D-Bus error name behind it.
    public init(_ code: Code, message: String, dbusErrorName: String? = nil) {
        self.code = code
        self.message = message
        self.dbusErrorName = dbusErrorName
    }

    public var description: String {
        "GeoClueError.\(code): \(message)" + (dbusErrorName.map { " (\($0))" } ?? "")
    }

    /// The error for a failed D-Bus call: `step` says which call (`GetClient`, `Start`, …).
    static func from(_ failure: DBusFailure, during step: String) -> GeoClueError {
        let code: Code =
            switch failure.name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                .serviceUnavailable
            case _ where failure.name.hasPrefix("org.freedesktop.DBus.Error.Spawn."): .serviceUnavailable
            case "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.DBus.Error.AuthFailed": .accessDenied
            case DBusFailure.Name.timedOut, "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
                .timedOut
            case DBusFailure.Name.disconnected, "org.freedesktop.DBus.Error.Disconnected": .disconnected
            default: .failed
            }
        var message = "\(step): \(failure.message)"
        if code == .timedOut && step == "GetClient" {
            message += " (GeoClue 2.6 does not answer GetClient while no agent is registered)"
        }
        return GeoClueError(code, message: message, dbusErrorName: failure.name)
    }
}
