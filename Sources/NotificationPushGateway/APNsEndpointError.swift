import Foundation

/// Why the APNs endpoint could not be configured or started.
///
/// An extensible struct: new cases never break callers that switch on ``code``.
public struct APNsEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable {
        fileprivate enum Kind: Sendable, Hashable { case badAddress, notLoopback, tls, authKey, state }
        fileprivate let kind: Kind
        /// The address is not `host:port`.
        public static let badAddress = Code(kind: .badAddress)
        /// The address is not a loopback one and remote binding was not allowed.
        public static let notLoopback = Code(kind: .notLoopback)
        /// The TLS certificate or key could not be loaded.
        public static let tls = Code(kind: .tls)
        /// A provider authentication key could not be loaded.
        public static let authKey = Code(kind: .authKey)
        /// The endpoint is not in a state that allows the call.
        public static let state = Code(kind: .state)
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence for the person.
    public let message: String

    /// The ``message``.
    public var description: String { message }

    static func badAddress(_ text: String) -> APNsEndpointError {
        APNsEndpointError(code: .badAddress, message: "'\(text)' is not host:port (or off)")
    }
    static func notLoopback(_ address: APNsEndpointAddress) -> APNsEndpointError {
        APNsEndpointError(
            code: .notLoopback, message: "\(address) is not a loopback address: pass --apns-allow-remote to bind it")
    }
    static func tls(_ detail: String) -> APNsEndpointError { APNsEndpointError(code: .tls, message: detail) }
    static func authKey(_ detail: String) -> APNsEndpointError { APNsEndpointError(code: .authKey, message: detail) }
    static func state(_ detail: String) -> APNsEndpointError { APNsEndpointError(code: .state, message: detail) }
}
