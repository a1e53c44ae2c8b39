import Foundation

/// Where an ``APNsClient`` sends notifications: Apple's production or sandbox host, or any APNs-compatible endpoint
/// that speaks HTTP/2 over TLS, such as `unotifyd`'s own APNs endpoint.
///
/// ```swift
/// let apple = APNsServer.production                          // api.push.apple.com:443
/// let local = APNsServer(host: "127.0.0.1", port: 2197)       // unotifyd --apns-address 127.0.0.1:2197 with TLS
/// ```
public struct APNsServer: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP address.
    public var host: String
    /// The TCP port: 443, or APNs's alternative 2197.
    public var port: Int

    /// Apple's production environment, for apps signed for distribution: `api.push.apple.com:443`.
    public static let production = APNsServer(host: "api.push.apple.com")
    /// Apple's development environment, for apps signed for development: `api.sandbox.push.apple.com:443`.
    public static let sandbox = APNsServer(host: "api.sandbox.push.apple.com")

    /// Creates a server address.
    ///
    /// - Parameters:
    ///   - host: The host name or IP address (an IPv6 address without brackets).
    ///   - port: The TCP port; 443 unless given.
    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL of a device's path on this server.
    func url(deviceToken: String) -> String { "https://\(description)/3/device/\(deviceToken)" }
}
