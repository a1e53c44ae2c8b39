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
    /// The APNs environment that issued the token: its pushes are taken only by that environment's endpoint.
    public var environment: PushEnvironment

    /// Creates a registration.
    public init(
        appID: String, token: DeviceToken, registeredAt: Date, unregisteredAt: Date? = nil,
        bundleDirectory: String? = nil, environment: PushEnvironment = .development
    ) {
        self.environment = environment
        self.appID = appID
        self.token = token
        self.registeredAt = registeredAt
        self.unregisteredAt = unregisteredAt
        self.bundleDirectory = bundleDirectory
    }

    /// Whether pushes to the token are accepted.
    public var isActive: Bool { unregisteredAt == nil }

    private enum CodingKeys: String, CodingKey {
        case appID, token, registeredAt, unregisteredAt, bundleDirectory, environment
    }

    /// Decodes a registration; one stored before environments existed is a development one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appID = try container.decode(String.self, forKey: .appID)
        token = try container.decode(DeviceToken.self, forKey: .token)
        registeredAt = try container.decode(Date.self, forKey: .registeredAt)
        unregisteredAt = try container.decodeIfPresent(Date.self, forKey: .unregisteredAt)
        bundleDirectory = try container.decodeIfPresent(String.self, forKey: .bundleDirectory)
        environment = try container.decodeIfPresent(PushEnvironment.self, forKey: .environment) ?? .development
    }
}

/// An APNs environment. Apple issues a device token for one of them: a development (sandbox) token to a build
/// signed for development, such as one Xcode installs, and a production token to TestFlight and App Store builds.
/// A push to a token on the other environment's host is answered 400 `BadDeviceToken`.
public enum PushEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    /// `api.sandbox.push.apple.com`, the tokens of development builds.
    case development
    /// `api.push.apple.com`, the tokens of TestFlight and App Store builds.
    case production
}
