import Foundation

/// Where the APNs endpoint listens: a host and a port, as `unotifyd --apns-address host:port` takes them.
///
/// ```swift
/// let address = try APNsEndpointAddress(parsing: "127.0.0.1:2197")
/// address.isLoopback   // true
/// ```
public struct APNsEndpointAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host: an IPv4 or IPv6 address, or `localhost`.
    public var host: String
    /// The port; 0 lets the system choose one (see ``APNsEndpoint/port``).
    public var port: Int

    /// APNs's alternative port, 2197, on 127.0.0.1.
    public static let `default` = APNsEndpointAddress(host: "127.0.0.1", port: 2197)

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (`[::1]:2197` for IPv6).
    /// - Throws: ``APNsEndpointError`` when the text is not `host:port` with a port from 0 to 65535.
    public init(parsing text: String) throws {
        guard let colon = text.lastIndex(of: ":") else { throw APNsEndpointError.badAddress(text) }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw APNsEndpointError.badAddress(text)
        }
        self.init(host: host, port: port)
    }

    /// Whether the host is a loopback address (127.0.0.0/8, ::1, localhost): only local processes can connect.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `host:port`, with the host in brackets when it is an IPv6 address.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
