import Foundation

/// How APNs treats the notification when a server-mode worker sends a request to a device: the request's
/// `apns-expiration`, `apns-priority` and `apns-collapse-id` headers, and the `mutable-content` and
/// `content-available` flags of its `aps` dictionary. Local delivery (the daemon, an app's own process) ignores them.
///
/// ```swift
/// var spec = RequestSpec(identifier: "score", content: content, trigger: nil)
/// spec.apns = APNsOptions(expiration: now.addingTimeInterval(3_600), priority: 5, collapseID: "match-42")
/// ```
public struct APNsOptions: Sendable, Hashable, Codable {
    /// Until when APNs keeps trying to deliver it to a device that is offline; `nil` lets the worker send no
    /// expiration (APNs tries once and keeps nothing). A date at or before the epoch second 0 means "at once only".
    public var expiration: Date?
    /// 10 (at once), 5 (as the device's power allows) or 1 (power first); `nil` lets the worker choose (10 for a
    /// visible notification, 5 otherwise).
    public var priority: Int?
    /// Notifications with the same collapse identifier replace each other on the device (at most 64 bytes); `nil`
    /// uses the request's identifier when it fits.
    public var collapseID: String?
    /// `mutable-content: 1`: the device's notification service extension may change the notification before it is
    /// shown (seed 004's rich pushes).
    public var mutableContent: Bool
    /// `content-available: 1`: the app is woken in the background. Without a title, subtitle or body it is a
    /// background push: sent with `apns-push-type: background` and priority 5, as APNs requires.
    public var contentAvailable: Bool

    /// Whether a notification with `content` and these options is a background push: `content-available` without a
    /// title, subtitle or body (no alert, `apns-push-type: background`, priority 5, no default sound).
    public func isBackgroundPush(_ content: NotificationPayload) -> Bool {
        contentAvailable && !content.hasVisibleText
    }

    /// The priorities APNs accepts.
    public static let priorities: Set<Int> = [1, 5, 10]
    /// The longest collapse identifier APNs accepts, in UTF-8 bytes.
    public static let collapseIDLimit = 64

    public init(
        expiration: Date? = nil, priority: Int? = nil, collapseID: String? = nil, mutableContent: Bool = false,
        contentAvailable: Bool = false
    ) {
        self.expiration = expiration
        self.priority = priority
        self.collapseID = collapseID
        self.mutableContent = mutableContent
        self.contentAvailable = contentAvailable
    }

    private enum CodingKeys: String, CodingKey {
        case expiration, priority, collapseID, mutableContent, contentAvailable
    }

    /// Decodes options stored by older versions too (without the two flags: both off).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        expiration = try container.decodeIfPresent(Date.self, forKey: .expiration)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        collapseID = try container.decodeIfPresent(String.self, forKey: .collapseID)
        mutableContent = try container.decodeIfPresent(Bool.self, forKey: .mutableContent) ?? false
        contentAvailable = try container.decodeIfPresent(Bool.self, forKey: .contentAvailable) ?? false
    }
}
