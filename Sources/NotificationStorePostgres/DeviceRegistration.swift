import Foundation

/// What a backend tells server mode about a device: registering an identifier again replaces its token, topic,
/// environment, zone and locale, and makes it active again.
///
/// ```swift
/// let registration = DeviceRegistration(
///     id: "user-42-phone", token: hexToken, topic: "com.example.app", environment: .production,
///     timeZoneIdentifier: "America/New_York", localeIdentifier: "en_US")
/// ```
public struct DeviceRegistration: Sendable, Hashable, Codable {
    /// The backend's identifier for the device (1 to 200 characters).
    public var id: String
    /// The APNs device token in hex (64 digits, either case).
    public var token: String
    /// The APNs topic: the app's bundle identifier.
    public var topic: String
    /// Which APNs host its notifications go to.
    public var environment: Device.Environment
    /// An IANA zone identifier such as `Europe/Paris`.
    public var timeZoneIdentifier: String
    /// A locale identifier such as `fr_FR`.
    public var localeIdentifier: String

    /// Creates a registration.
    public init(
        id: String, token: String, topic: String, environment: Device.Environment, timeZoneIdentifier: String,
        localeIdentifier: String
    ) {
        self.id = id
        self.token = token
        self.topic = topic
        self.environment = environment
        self.timeZoneIdentifier = timeZoneIdentifier
        self.localeIdentifier = localeIdentifier
    }
}
