extension PushServiceClient {
    /// A device's audience as the push service holds it: the account it is bound to, its aliases and its tags
    /// (docs/push-service.md, "Audiences").
    ///
    /// ```swift
    /// let audience = try await client.bindTags(["news", "sports"])
    /// print(audience.tags)  // ["news", "sports"]
    /// ```
    public struct Audience: Sendable, Hashable, Decodable {
        /// The device's identifier.
        public var device: String
        /// The account the device is bound to, if any.
        public var account: String?
        /// The device's aliases, as the server lists them.
        public var aliases: [String]
        /// The device's tags, as the server lists them.
        public var tags: [String]

        /// Creates a value (for comparisons in tests).
        public init(device: String, account: String?, aliases: [String], tags: [String]) {
            self.device = device
            self.account = account
            self.aliases = aliases
            self.tags = tags
        }
    }
}
