/// Where the web center listens: a host and a port, as `unotifyd --web-address host:port` takes them.
///
/// ```swift
/// let address = try WebCenterAddress(parsing: "127.0.0.1:2198")
/// address.isLoopback   // true
/// ```
public struct WebCenterAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host: an IPv4 or IPv6 address, or `localhost`.
    public var host: String
    /// The port; 0 lets the system choose one (the center reports the one it got).
    public var port: Int

    /// 127.0.0.1:2198, the default of `unotifyd --web-address`.
    public static let `default` = WebCenterAddress(host: "127.0.0.1", port: 2198)

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (`[::1]:2198` for IPv6).
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/badAddress``) when the text is not `host:port` with a port
    ///   from 0 to 65535.
    public init(parsing text: String) throws(WebCenterError) {
        let bad = WebCenterError(.badAddress, "'\(text)' is not host:port with a port from 0 to 65535")
        guard let colon = text.lastIndex(of: ":") else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("/"), !host.contains(" "),
            let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else { throw bad }
        self.init(host: host, port: port)
    }

    /// Whether the host is a loopback address (127.0.0.0/8, ::1, localhost): only local processes can connect.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `host:port`, with the host in brackets when it is an IPv6 address.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
