import Foundation

/// How APNs treats the notification when a server-mode worker sends a request to a device: the request's
/// `apns-expiration`, `apns-priority` and `apns-collapse-id` headers. Local delivery (the daemon, an app's own
/// process) ignores them.
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

    /// The priorities APNs accepts.
    public static let priorities: Set<Int> = [1, 5, 10]
    /// The longest collapse identifier APNs accepts, in UTF-8 bytes.
    public static let collapseIDLimit = 64

    public init(expiration: Date? = nil, priority: Int? = nil, collapseID: String? = nil) {
        self.expiration = expiration
        self.priority = priority
        self.collapseID = collapseID
    }
}
