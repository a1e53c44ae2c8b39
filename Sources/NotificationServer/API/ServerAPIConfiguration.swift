/// Where the server API listens and what it accepts: `unotifyd --server --api-address`, `--api-allow-remote`,
/// `--api-tls-certificate` and `--api-tls-key`.
public struct ServerAPIConfiguration: Sendable, Hashable {
    /// The host: an IPv4 or IPv6 address, or `localhost`.
    public var host: String
    /// The port; 0 lets the system choose one (``ServerAPI/run(onListening:)`` reports the one it got).
    public var port: Int
    /// Whether a host beyond loopback is accepted (`--api-allow-remote`).
    public var allowsRemote: Bool
    /// The largest request body accepted; larger ones get 413. 64 KiB by default.
    public var maximumBodySize: Int
    /// The largest body of `POST /v1/request-batches`; larger ones get 413. 4 MiB by default.
    public var maximumBatchBodySize: Int
    /// The most requests `POST /v1/request-batches` takes in one call; more get 413. 5,000 by default.
    public var maximumBatchCount: Int
    /// The certificate and key of HTTPS; `nil` (the default) serves plain HTTP. A host beyond loopback still needs
    /// ``allowsRemote``; without TLS it is served with a warning in the log.
    public var tls: ServerAPITLS?

    /// 127.0.0.1:2199 on loopback only, 64 KiB bodies, batches of at most 5,000 requests in 4 MiB: the defaults of
    /// `unotifyd --server`.
    public init(
        host: String = "127.0.0.1", port: Int = 2199, allowsRemote: Bool = false, maximumBodySize: Int = 65536,
        maximumBatchBodySize: Int = 4 << 20, maximumBatchCount: Int = 5_000, tls: ServerAPITLS? = nil
    ) {
        self.host = host
        self.port = port
        self.allowsRemote = allowsRemote
        self.maximumBodySize = maximumBodySize
        self.maximumBatchBodySize = maximumBatchBodySize
        self.maximumBatchCount = maximumBatchCount
        self.tls = tls
    }

    /// Whether the host is a loopback address.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }
}
