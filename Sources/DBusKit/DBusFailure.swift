/// A failed D-Bus operation: an error reply from a peer, or a problem of the connection itself.
///
/// `name` is the D-Bus error name, such as `org.freedesktop.DBus.Error.ServiceUnknown`; failures that do not come
/// from a peer use the names under ``DBusFailure/Name``.
public struct DBusFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name.
    public var name: String
    /// The human-readable explanation.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// Error names for failures raised by this module rather than by a peer.
    public enum Name {
        /// No reply arrived within the call's timeout.
        public static let timedOut = "org.openusernotifications.DBusKit.TimedOut"
        /// The connection was closed or lost.
        public static let disconnected = "org.openusernotifications.DBusKit.Disconnected"
        /// An argument could not be encoded.
        public static let invalidArguments = "org.openusernotifications.DBusKit.InvalidArguments"
        /// No session bus address was given or found.
        public static let noSessionBus = "org.openusernotifications.DBusKit.NoSessionBus"
        /// The system's libdbus-1 could not be opened (see ``DBusLibrary``).
        public static let libraryUnavailable = "org.openusernotifications.DBusKit.LibraryUnavailable"
    }

    public var description: String { "\(name): \(message)" }
}
