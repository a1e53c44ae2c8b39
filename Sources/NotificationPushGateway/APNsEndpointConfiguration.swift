import Foundation
import NotificationModel
import NotificationEngine

/// How the APNs endpoint runs: address, TLS, provider tokens, the limits that produce APNs's transport
/// answers (`IdleTimeout`, `TooManyRequests`, `ServiceUnavailable`) and the clock they are measured with.
///
/// ```swift
/// var configuration = APNsEndpointConfiguration(address: .default)
/// configuration.tls = .init(certificatePath: "cert.pem", keyPath: "key.pem")
/// configuration.providerTokens = try ProviderTokenVerifier(authKeys: "/etc/apns-keys", teamID: "TEAM123456")
/// ```
///
/// Tests pass a manual clock (`ManualNotificationClock` in `OpenUserNotificationsTesting`) and move it themselves:
///
/// ```swift
/// let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_000_000))
/// var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
/// configuration.clock = clock
/// configuration.idleTimeout = 60
/// // … open a connection, then:
/// clock.advance(by: 61)   // the connection gets GOAWAY {"reason":"IdleTimeout"}
/// ```
public struct APNsEndpointConfiguration: Sendable {
    /// A PEM certificate chain and private key for TLS, and the authority that issues providers' client
    /// certificates.
    public struct TLS: Sendable, Hashable {
        /// The PEM certificate (chain) file.
        public var certificatePath: String
        /// The PEM private key file.
        public var keyPath: String
        /// A PEM file of the certificate authorities whose certificates authenticate providers, as Apple's
        /// certificate authority does for APNs (`unotifyd --apns-client-ca`). With it the endpoint asks every
        /// connection for a client certificate (a client may send none and use provider tokens); `nil` asks for
        /// none.
        public var clientCertificateAuthorityPath: String?

        /// Creates TLS settings.
        public init(certificatePath: String, keyPath: String, clientCertificateAuthorityPath: String? = nil) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
            self.clientCertificateAuthorityPath = clientCertificateAuthorityPath
        }
    }

    /// Where to listen.
    public var address: APNsEndpointAddress
    /// Whether a non-loopback address may be bound (the caller logs a warning).
    public var allowsRemote = false
    /// TLS settings; `nil` serves cleartext (h2c prior knowledge and HTTP/1.1).
    public var tls: TLS?
    /// The provider-token check; `nil` accepts requests without `authorization`.
    public var providerTokens: ProviderTokenVerifier?
    /// A connection that sends nothing for this long gets a GOAWAY with `{"reason":"IdleTimeout"}` (HTTP/2) and is
    /// closed.
    public var idleTimeout: TimeInterval = 3_600
    /// The APNs environment the endpoint stands for (``PushGateway/environment``), in its log lines.
    public var environment: PushEnvironment = .development
    /// Where every request and its answer are logged (`unotify apns log`); `nil` logs nothing.
    public var requestLog: APNsRequestLog?
    /// The fault rules in force, asked once for each batch of requests read together, for each request answered on
    /// its own and for each new connection (``APNsFaultRule``;
    /// `unotify apns fault`). None by default; the daemon reads its store's, decoding them again only when they
    /// changed.
    public var faultRules: @Sendable () async -> [APNsFaultRule] = { [] }
    /// Requests answered at the same time across all connections; more answer 503 `ServiceUnavailable`.
    public var maximumConcurrentRequests = 1_000
    /// Requests to one device token within one second; more answer 429 `TooManyRequests`. `nil`: no limit.
    public var maximumRequestsPerTokenPerSecond: Int? = 1_000
    /// HTTP/2 streams a client may open at once (APNs advertises 1000 at most).
    public var maximumConcurrentStreams = 1_000
    /// With ``providerTokens``: a new connection's first SETTINGS allow one stream, and a SETTINGS frame raises the
    /// limit to ``maximumConcurrentStreams`` once the connection posted a valid provider token, as APNs does.
    /// `false` allows ``maximumConcurrentStreams`` from the start.
    public var oneStreamUntilProviderToken = true
    /// Where the endpoint reads time: the idle timeout, the per-token rate's seconds and the grace of
    /// ``APNsEndpoint/stop(grace:)`` are measured with it. The system clock unless a test injects a manual one.
    public var clock: any NotificationClock = SystemNotificationClock()

    /// Creates a configuration.
    public init(address: APNsEndpointAddress = .default) {
        self.address = address
    }
}
