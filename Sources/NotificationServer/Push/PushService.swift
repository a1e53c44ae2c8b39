import Foundation
import NotificationEngine
import NotificationStorePostgres

/// The push service's Swift API for backends (issue 20, docs/push-service.md): audiences (a device's account, aliases
/// and tags), device checks and tag expressions, on the PostgreSQL store server mode runs on.
///
/// The HTTP API (``ServerAPI``) serves the same calls under `/v1/devices/{id}/account`, `…/aliases`, `…/tags`,
/// `/v1/accounts/{account}/devices`, `/v1/aliases/{alias}/devices`, `/v1/device-checks` and `/v1/audience-counts`.
///
/// ```swift
/// let push = PushService(store: store)
/// try await push.bindAccount("user-42", deviceID: "user-42-phone")
/// try await push.bindTags(["news", "sports"], deviceID: "user-42-phone")
/// let expression = try TagExpression(json: ["and": [["tag": "news"], ["not": ["tag": "muted"]]]])
/// let reached = try await push.deviceCount(matching: expression)
/// ```
public struct PushService: Sendable {
    /// The store, shared with the workers.
    public let store: PostgresNotificationStore
    /// Dates pushes as they are accepted.
    public let clock: any NotificationClock

    /// Creates the service on a migrated store whose pool runs.
    ///
    /// - Parameters:
    ///   - store: The PostgreSQL store (``PostgresNotificationStore/migrate()`` called).
    ///   - clock: Dates accepted pushes; the system's time by default.
    public init(store: PostgresNotificationStore, clock: any NotificationClock = ServerWorker.utcClock) {
        self.store = store
        self.clock = clock
    }

    // MARK: - Audiences

    /// Binds a device to an account, replacing the one it had (a device has at most one).
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: `DeviceError` (`invalidName`, `unknownDevice`); store failures.
    @discardableResult
    public func bindAccount(_ account: String, deviceID: String) async throws -> DeviceAudience {
        try await store.bindAccount(account, deviceID: deviceID)
    }

    /// Unbinds a device from its account.
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: `DeviceError` (`unknownDevice`); store failures.
    @discardableResult
    public func unbindAccount(deviceID: String) async throws -> DeviceAudience {
        try await store.unbindAccount(deviceID: deviceID)
    }

    /// Adds aliases to a device (at most ``AudienceLimits/aliasesPerDevice`` in all).
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: `DeviceError` (`invalidName`, `tooManyAliases`, `unknownDevice`); store failures.
    @discardableResult
    public func bindAliases(_ aliases: [String], deviceID: String) async throws -> DeviceAudience {
        try await store.bindAliases(aliases, deviceID: deviceID)
    }

    /// Removes aliases from a device; `nil` removes all.
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: `DeviceError` (`unknownDevice`); store failures.
    @discardableResult
    public func unbindAliases(_ aliases: [String]?, deviceID: String) async throws -> DeviceAudience {
        try await store.unbindAliases(aliases, deviceID: deviceID)
    }

    /// Adds tags to a device (at most ``AudienceLimits/tagsPerDevice`` in all).
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: `DeviceError` (`invalidName`, `tooManyTags`, `unknownDevice`); store failures.
    @discardableResult
    public func bindTags(_ tags: [String], deviceID: String) async throws -> DeviceAudience {
        try await store.bindTags(tags, deviceID: deviceID)
    }

    /// Removes tags from a device; `nil` removes all.
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: `DeviceError` (`unknownDevice`); store failures.
    @discardableResult
    public func unbindTags(_ tags: [String]?, deviceID: String) async throws -> DeviceAudience {
        try await store.unbindTags(tags, deviceID: deviceID)
    }

    /// A device's account, aliases and tags.
    ///
    /// - Throws: `DeviceError` (`unknownDevice`); store failures.
    public func audience(deviceID: String) async throws -> DeviceAudience {
        try await store.audience(deviceID: deviceID)
    }

    /// The devices bound to an account, a page at a time (see ``PostgresNotificationStore/devices(account:after:limit:)``).
    public func devices(account: String, after: String? = nil, limit: Int = AudienceLimits.devicesPerPage)
        async throws -> [Device]
    {
        try await store.devices(account: account, after: after, limit: limit)
    }

    /// The devices with an alias, a page at a time (see ``PostgresNotificationStore/devices(alias:after:limit:)``).
    public func devices(alias: String, after: String? = nil, limit: Int = AudienceLimits.devicesPerPage)
        async throws -> [Device]
    {
        try await store.devices(alias: alias, after: after, limit: limit)
    }

    /// Checks up to ``AudienceLimits/devicesPerCheck`` device identifiers: known, active, zone, topic.
    ///
    /// - Throws: `DeviceError` (`tooManyDevices`); store failures.
    public func checkDevices(ids: [String]) async throws -> [DeviceCheck] {
        try await store.checkDevices(ids: ids)
    }

    /// How many active devices a tag expression reaches now.
    public func deviceCount(matching expression: TagExpression) async throws -> Int {
        try await store.deviceCount(matching: expression)
    }

    // MARK: - Pushes

    /// Accepts pushes, all or none (at most 100 in one call): each is stored with its message identifier and fanned
    /// out by the workers (``PushFanOut``), never in this call.
    ///
    /// ```swift
    /// var content = NotificationPayload()
    /// content.title = "Match tonight"
    /// let id = try await push.send([
    ///     PushMessage(target: .tag(.tag("sports")), content: content, sendTime: .now, createdAt: push.clock.now)
    /// ]).first
    /// ```
    ///
    /// - Returns: The message identifiers, in order.
    /// - Throws: `PushError` for an invalid push (nothing is stored then); store failures.
    @discardableResult
    public func send(_ pushes: [PushMessage]) async throws -> [String] {
        try await store.insertPushes(pushes)
        return pushes.map(\.id)
    }

    /// The push with this message identifier, or `nil`.
    public func push(id: String) async throws -> PushMessage? {
        try await store.push(id: id)
    }

    /// Cancels a push not yet sent to every device.
    ///
    /// - Returns: How many devices' pending requests were removed.
    /// - Throws: `PushError` (`unknownMessage`, `alreadySent`); store failures.
    @discardableResult
    public func cancel(id: String) async throws -> Int {
        try await store.cancelPush(id: id)
    }

    /// A push's statistics (targeted, sent, accepted, failed by reason, cancelled), exact at the moment of the call.
    ///
    /// - Returns: `nil` for an unknown message identifier.
    public func statistics(id: String) async throws -> PushStatistics? {
        try await store.pushStatistics(id: id)
    }

    /// The statistics of every push to one topic's devices (an app's).
    public func statistics(topic: String, since: Date? = nil) async throws -> PushStatistics {
        try await store.pushStatistics(topic: topic, since: since)
    }

    // MARK: - Receipts

    /// Records a device's receipts (received, opened, dismissed, action), once per device, message and kind, with the
    /// device's APNs token as its credential: the app has no backend token.
    ///
    /// ```swift
    /// try await push.recordReceipts(
    ///     [PushReceipt(messageID: id, kind: .opened, date: .now)], deviceID: "phone-1", token: hexToken)
    /// ```
    ///
    /// - Parameters:
    ///   - receipts: At most 100.
    ///   - deviceID: The reporting device.
    ///   - token: The device's token in hex, compared in constant time with the registered one.
    /// - Returns: What was stored, what was known already, and unknown message identifiers.
    /// - Throws: `PushError` (`unauthorizedDevice` for an unknown device or another token, `invalidPush`); store
    ///   failures.
    public func recordReceipts(_ receipts: [PushReceipt], deviceID: String, token: String) async throws
        -> PostgresNotificationStore.ReceiptResult
    {
        try await checkCredential(deviceID: deviceID, token: token)
        return try await store.recordReceipts(receipts, deviceID: deviceID)
    }

    /// Checks a device's credential: its APNs token in hex (either case), compared in constant time.
    ///
    /// - Throws: `PushError` with `unauthorizedDevice` for an unknown device or another token.
    public func checkCredential(deviceID: String, token: String) async throws {
        let device = try await store.device(id: deviceID)
        let expected = Array((device?.token.hex ?? String(repeating: "-", count: 64)).utf8)
        let given = Array(token.lowercased().utf8)
        var difference = UInt8(truncatingIfNeeded: expected.count ^ given.count)
        for index in 0..<max(expected.count, given.count) {
            difference |= (index < expected.count ? expected[index] : 0) ^ (index < given.count ? given[index] : 0)
        }
        guard device != nil, difference == 0 else {
            throw PushError(.unauthorizedDevice, "the token is not the one registered for device '\(deviceID)'")
        }
    }
}
