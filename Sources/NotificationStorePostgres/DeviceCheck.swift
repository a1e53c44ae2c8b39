import Foundation

/// What the push service knows of one device identifier, as the anchors' `CheckDevices` answers: whether it is
/// registered, active, and its zone.
///
/// ```swift
/// for check in try await store.checkDevices(ids: ["phone-1", "phone-2"]) where !check.isKnown {
///     print("\(check.deviceID) is not registered")
/// }
/// ```
public struct DeviceCheck: Sendable, Hashable, Codable {
    /// The identifier asked about.
    public var deviceID: String
    /// Whether a device has this identifier.
    public var isKnown: Bool
    /// Whether it is active (APNs has not reported its token gone); `false` for an unknown one.
    public var isActive: Bool
    /// Its zone, `nil` for an unknown one.
    public var timeZoneIdentifier: String?
    /// Its topic, `nil` for an unknown one.
    public var topic: String?
    /// When it last registered or changed (the server does not see devices otherwise); `nil` for an unknown one.
    public var lastRegisteredAt: Date?

    /// Creates a check value (the store makes them).
    public init(
        deviceID: String, isKnown: Bool, isActive: Bool, timeZoneIdentifier: String?, topic: String?,
        lastRegisteredAt: Date?
    ) {
        self.deviceID = deviceID
        self.isKnown = isKnown
        self.isActive = isActive
        self.timeZoneIdentifier = timeZoneIdentifier
        self.topic = topic
        self.lastRegisteredAt = lastRegisteredAt
    }
}
