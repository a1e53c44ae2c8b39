/// Who a device belongs to, for the push service's targets: at most one account, and any number of aliases and tags
/// (up to ``AudienceLimits``).
///
/// ```swift
/// let audience = try await store.bindTags(["news", "sports"], deviceID: "user-42-phone")
/// print(audience.account ?? "no account", audience.aliases, audience.tags)
/// ```
public struct DeviceAudience: Sendable, Hashable, Codable {
    /// The device.
    public var deviceID: String
    /// The account the device is bound to, or `nil`.
    public var account: String?
    /// The device's aliases, sorted.
    public var aliases: [String]
    /// The device's tags, sorted.
    public var tags: [String]

    /// Creates an audience value (the store makes them).
    public init(deviceID: String, account: String?, aliases: [String], tags: [String]) {
        self.deviceID = deviceID
        self.account = account
        self.aliases = aliases
        self.tags = tags
    }
}
