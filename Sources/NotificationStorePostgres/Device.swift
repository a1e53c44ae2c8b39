import Foundation
import NotificationModel

/// A device registered with server mode: where its notifications go (an APNs device token, topic and environment)
/// and the zone and locale its floating calendar triggers follow.
///
/// A device's requests are kept in the store under the app identity ``appID``, so replacing by identifier,
/// cancelling and the pending cap apply per device.
///
/// ```swift
/// let device = try await store.registerDevice(
///     DeviceRegistration(
///         id: "user-42-phone", token: "a1b2…", topic: "com.example.app", environment: .production,
///         timeZoneIdentifier: "Europe/Paris", localeIdentifier: "fr_FR"),
///     at: clock.now)
/// ```
public struct Device: Sendable, Hashable, Codable {
    /// Which APNs host a device's notifications go to.
    public enum Environment: String, Sendable, Hashable, Codable, CaseIterable {
        /// Apple's sandbox host: apps signed for development.
        case development
        /// Apple's production host.
        case production
    }

    /// The backend's identifier for the device.
    public var id: String
    /// The APNs device token.
    public var token: DeviceToken
    /// The APNs topic: the app's bundle identifier.
    public var topic: String
    /// Which APNs host the device's notifications go to.
    public var environment: Environment
    /// The IANA zone its floating calendar triggers follow, such as `Europe/Paris`.
    public var timeZoneIdentifier: String
    /// The device's locale identifier, such as `fr_FR`.
    public var localeIdentifier: String
    /// Whether notifications are sent to it; APNs reporting the token gone (410) makes it inactive.
    public var isActive: Bool
    /// When it was first registered.
    public var createdAt: Date
    /// When it was last registered, changed or deactivated.
    public var updatedAt: Date

    /// Creates a device value (the store makes them; tests and callers may too).
    public init(
        id: String, token: DeviceToken, topic: String, environment: Environment, timeZoneIdentifier: String,
        localeIdentifier: String, isActive: Bool, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.token = token
        self.topic = topic
        self.environment = environment
        self.timeZoneIdentifier = timeZoneIdentifier
        self.localeIdentifier = localeIdentifier
        self.isActive = isActive
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The app identity under which the store keeps this device's requests.
    public var appID: String { Self.appID(forDevice: id) }

    /// The prefix of every device's app identity.
    public static let appIDPrefix = "device:"

    /// The app identity under which the store keeps the requests of the device `id`: `device:` and the identifier.
    public static func appID(forDevice id: String) -> String { appIDPrefix + id }

    /// The device identifier of a device's app identity, or `nil` when `appID` is not one.
    public static func deviceID(forAppID appID: String) -> String? {
        guard appID.hasPrefix(appIDPrefix) else { return nil }
        return String(appID.dropFirst(appIDPrefix.count))
    }
}
