import Foundation

/// One request the APNs endpoint received and what it answered, as `unotify apns log` shows it. Device tokens and
/// provider tokens appear only as their last eight characters.
public struct APNsLogEntry: Sendable, Hashable, Codable {
    /// The store's number for the entry, growing; 0 until it is stored.
    public var id: Int64
    /// When the request arrived.
    public var receivedAt: Date
    /// Which connection it came on (a short label, the same for every request of one connection).
    public var connection: String
    /// The endpoint's environment.
    public var environment: PushEnvironment
    public var method: String
    /// The path, with the device token shortened.
    public var path: String
    /// The request's headers, in order, with `authorization` shortened.
    public var headers: [[String]]
    /// The body as text (at most 5 KB of it).
    public var payload: String
    /// The answer's HTTP status and, for an error, Apple's reason.
    public var status: Int
    public var reason: String?
    /// The `apns-id` answered.
    public var apnsID: String?
    /// From the request's arrival to its answer, in seconds.
    public var latency: TimeInterval

    public init(
        receivedAt: Date, connection: String, environment: PushEnvironment, method: String, path: String,
        headers: [(String, String)], payload: Data, status: Int, reason: String?, apnsID: String?, latency: TimeInterval
    ) {
        id = 0
        self.receivedAt = receivedAt
        self.connection = connection
        self.environment = environment
        self.method = method
        self.path = Self.shortened(path: path)
        self.headers = headers.map { name, value in
            [name, name.lowercased() == "authorization" ? Self.shortened(secret: value) : value]
        }
        self.payload = String(decoding: payload.prefix(5_120), as: UTF8.self)
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.latency = latency
    }

    /// The `apns-topic` header, if any.
    public var topic: String? { headers.first { $0.first?.lowercased() == "apns-topic" }?.last }

    /// `/3/device/<64 hex>` as `/3/device/…<last 8>`.
    static func shortened(path: String) -> String {
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix), path.count > prefix.count + 8 else { return path }
        return prefix + "…" + path.suffix(8)
    }

    /// `bearer <JWT>` as `bearer …<last 8>`.
    static func shortened(secret: String) -> String {
        let parts = secret.split(separator: " ", maxSplits: 1)
        let value = parts.last.map(String.init) ?? ""
        let scheme = parts.count == 2 ? String(parts[0]) + " " : ""
        return value.count > 8 ? scheme + "…" + value.suffix(8) : scheme + "…"
    }
}
