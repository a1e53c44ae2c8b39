import Foundation

/// An app's registration for remote notifications, as the store keeps it: its device token, when it was issued,
/// and when the app unregistered.
public struct PushRegistration: Sendable, Hashable, Codable {
    /// The app's bundle identifier.
    public var appID: String
    /// The device token issued to the app.
    public var token: DeviceToken
    /// When the token was issued.
    public var registeredAt: Date
    /// When the app unregistered; a push to the token then answers 410 `Unregistered` with this instant.
    public var unregisteredAt: Date?
    /// The app's folder with its `Localizable` tables and sounds, where `loc-key` strings and named sounds of
    /// its pushes are looked up.
    public var bundleDirectory: String?

    /// Creates a registration.
    public init(
        appID: String, token: DeviceToken, registeredAt: Date, unregisteredAt: Date? = nil,
        bundleDirectory: String? = nil
    ) {
        self.appID = appID
        self.token = token
        self.registeredAt = registeredAt
        self.unregisteredAt = unregisteredAt
        self.bundleDirectory = bundleDirectory
    }

    /// Whether pushes to the token are accepted.
    public var isActive: Bool { unregisteredAt == nil }
}
