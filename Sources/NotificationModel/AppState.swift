import Foundation

/// What the system remembers of one app: its authorization and its badge.
public struct AppState: Sendable, Hashable, Codable {
    public var appID: String
    public var authorization: AuthorizationStatus
    /// The options granted by the last `requestAuthorization`.
    public var grantedOptions: AuthorizationSet
    public var badge: Int

    public init(appID: String, authorization: AuthorizationStatus = .notDetermined, grantedOptions: AuthorizationSet = [], badge: Int = 0) {
        self.appID = appID
        self.authorization = authorization
        self.grantedOptions = grantedOptions
        self.badge = badge
    }
}

/// The raw values of `UNAuthorizationStatus`.
public enum AuthorizationStatus: Int, Sendable, Hashable, Codable, CaseIterable {
    case notDetermined = 0, denied = 1, authorized = 2, provisional = 3, ephemeral = 4

    /// Whether notifications may be shown at all.
    public var allowsDelivery: Bool { self == .authorized || self == .provisional || self == .ephemeral }
}

/// The bits of `UNAuthorizationOptions`.
public struct AuthorizationSet: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = AuthorizationSet(rawValue: 1 << 0)
    public static let sound = AuthorizationSet(rawValue: 1 << 1)
    public static let alert = AuthorizationSet(rawValue: 1 << 2)
    public static let carPlay = AuthorizationSet(rawValue: 1 << 3)
    public static let criticalAlert = AuthorizationSet(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = AuthorizationSet(rawValue: 1 << 5)
    public static let provisional = AuthorizationSet(rawValue: 1 << 6)
    public static let announcement = AuthorizationSet(rawValue: 1 << 7)
    public static let timeSensitive = AuthorizationSet(rawValue: 1 << 8)
}
