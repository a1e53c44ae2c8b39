import Foundation

/// How the APNs endpoint runs: address, TLS, provider tokens and the limits that produce APNs's transport
/// answers (`IdleTimeout`, `TooManyRequests`, `ServiceUnavailable`).
///
/// ```swift
/// var configuration = APNsEndpointConfiguration(address: .default)
/// configuration.tls = .init(certificatePath: "cert.pem", keyPath: "key.pem")
/// configuration.providerTokens = try ProviderTokenVerifier(authKeys: "/etc/apns-keys", teamID: "TEAM123456")
/// ```
public struct APNsEndpointConfiguration: Sendable {
    /// A PEM certificate chain and private key for TLS.
    public struct TLS: Sendable, Hashable {
        /// The PEM certificate (chain) file.
        public var certificatePath: String
        /// The PEM private key file.
        public var keyPath: String

        /// Creates TLS settings.
        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
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
    /// Requests answered at the same time across all connections; more answer 503 `ServiceUnavailable`.
    public var maximumConcurrentRequests = 1_000
    /// Requests to one device token within one second; more answer 429 `TooManyRequests`. `nil`: no limit.
    public var maximumRequestsPerTokenPerSecond: Int? = 1_000
    /// HTTP/2 streams a client may open at once (APNs advertises 1000 at most).
    public var maximumConcurrentStreams = 1_000

    /// Creates a configuration.
    public init(address: APNsEndpointAddress = .default) {
        self.address = address
    }
}
