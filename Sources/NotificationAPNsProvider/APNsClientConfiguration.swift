import Foundation
import NIOSSL
import NotificationEngine

/// How an ``APNsClient`` connects and retries: the server, TLS, provider-token refresh, timeouts, the retry policy,
/// and the clock all of it is measured with.
///
/// ```swift
/// var configuration = APNsClientConfiguration(server: .sandbox)
/// configuration.retryPolicy.maximumAttempts = 8
/// ```
///
/// To send to `unotifyd`'s APNs endpoint over TLS with a certificate of your own:
///
/// ```swift
/// var configuration = APNsClientConfiguration(server: APNsServer(host: "127.0.0.1", port: 2197))
/// configuration.trustRoots(pemFile: "/etc/unotify/apns-ca.pem")
/// ```
public struct APNsClientConfiguration: Sendable {
    /// Where to send.
    public var server: APNsServer
    /// TLS for the connection. The system's trust roots unless changed; HTTP/2 is negotiated by ALPN.
    public var tls: TLSConfiguration = .makeClientConfiguration()
    /// How answers that may be retried are retried.
    public var retryPolicy = APNsRetryPolicy()
    /// How old a provider token gets before it is replaced: at least 20 minutes, under an hour (APNs's limits).
    public var tokenRefreshInterval: TimeInterval = 50 * 60
    /// How long one request may take, connecting included, before it counts as a connection failure (and is
    /// retried), in seconds.
    public var requestTimeout: TimeInterval = 30
    /// How long connecting (TCP and TLS) may take, in seconds.
    public var connectTimeout: TimeInterval = 10
    /// How long an unused connection is kept open, in seconds. Apple asks providers to keep connections open
    /// rather than opening one per notification.
    public var idleTimeout: TimeInterval = 30 * 60
    /// Where time comes from: provider-token ages and the waits between retries. The system clock unless a test
    /// injects a manual one.
    public var clock: any NotificationClock = SystemNotificationClock()
    /// Seeds the random numbers of the retry jitter; `nil` seeds from the system. Tests fix it.
    public var jitterSeed: UInt64?

    /// Creates a configuration for a server.
    public init(server: APNsServer) {
        self.server = server
    }

    /// Trusts the certificates of a PEM file (a test CA, or a self-signed endpoint certificate) instead of the
    /// system's roots.
    ///
    /// - Parameter pemFile: The PEM file's path.
    public mutating func trustRoots(pemFile: String) {
        tls.trustRoots = .file(pemFile)
    }

    /// Checks the values.
    func validate() throws(APNsClientError) {
        try retryPolicy.validate()
        guard requestTimeout > 0, connectTimeout > 0, idleTimeout > 0 else {
            throw APNsClientError(.invalidConfiguration, "the timeouts must be positive")
        }
        guard (1...65_535).contains(server.port), !server.host.isEmpty else {
            throw APNsClientError(.invalidConfiguration, "the server \(server) has no host or a port out of 1...65535")
        }
    }
}
