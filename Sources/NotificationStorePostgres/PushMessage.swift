import Foundation
import NotificationModel

/// A push accepted by the push service (docs/push-service.md): its message identifier, target, content and send time,
/// and how far workers have fanned it out.
///
/// Workers fan a push out into one pending request per reached device, identified `push:<id>`
/// (``requestIdentifier``), which the device's ordinary delivery path sends through APNs.
///
/// ```swift
/// var content = NotificationPayload()
/// content.title = "Sale"
/// let push = PushMessage(target: .alias("alice"), content: content, sendTime: .now, createdAt: clock.now)
/// try await store.insertPushes([push])
/// ```
public struct PushMessage: Sendable, Hashable {
    /// What a worker has done with a push.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Waiting for its send time.
        case scheduled
        /// Partly fanned out (``PushMessage/targeted`` devices so far).
        case fanning
        /// Fanned out to every reached device.
        case done
        /// Cancelled before it was sent (or before it was sent to every device).
        case cancelled
        /// Its expiry passed before it was fanned out: sent to nobody.
        case expired
    }

    /// The message identifier (a lowercase UUID by default).
    public var id: String
    /// Who it goes to.
    public var target: PushTarget
    /// The notification: title, subtitle, body, badge, sound, category, thread, custom keys (`userInfo`).
    public var content: NotificationPayload
    /// When it is sent.
    public var sendTime: PushSendTime
    /// After this instant it is no longer fanned out, and APNs keeps it no longer for an offline device (each
    /// device's request carries it as `apns-expiration`); `nil` for never (APNs then tries once and keeps nothing).
    public var expiresAt: Date?
    /// The `apns-collapse-id` of its notifications (1 to 64 UTF-8 bytes): a later push with the same one replaces it
    /// on the device; `nil` sends ``defaultCollapseID`` (`push:<id>`).
    public var collapseID: String?
    /// `mutable-content: 1` in each notification: the device's service extension may change it before it is shown.
    public var mutableContent = false
    /// `content-available: 1` in each notification: the app is woken in the background. With no title, subtitle
    /// or body, the push is a background push (no alert, `apns-push-type: background`, priority 5).
    public var contentAvailable = false
    /// When the service accepted it.
    public var createdAt: Date
    /// How far it is.
    public var state: State
    /// The devices it was fanned out to so far.
    public var targeted: Int

    /// Creates a push, `scheduled` with nothing fanned out.
    public init(
        id: String = UUID().uuidString.lowercased(), target: PushTarget, content: NotificationPayload,
        sendTime: PushSendTime, expiresAt: Date? = nil, collapseID: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.target = target
        self.content = content
        self.sendTime = sendTime
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.createdAt = createdAt
        state = .scheduled
        targeted = 0
    }

    /// The identifier of the pending request a worker makes for each device: `push:` and the message identifier.
    public var requestIdentifier: String { Self.requestIdentifier(forMessage: id) }

    /// The collapse identifier sent when the push names none: ``requestIdentifier`` (`push:<id>`) when it fits in
    /// APNs's 64 bytes, else `nil` (no `apns-collapse-id`).
    public var defaultCollapseID: String? {
        requestIdentifier.utf8.count <= APNsOptions.collapseIDLimit ? requestIdentifier : nil
    }

    /// What each device's request tells APNs: the expiry, the collapse identifier (``defaultCollapseID`` unless
    /// the push names one) and the two flags; the worker chooses the priority.
    public var apnsOptions: APNsOptions {
        APNsOptions(
            expiration: expiresAt, collapseID: collapseID ?? defaultCollapseID, mutableContent: mutableContent,
            contentAvailable: contentAvailable)
    }

    /// `push:` and the message identifier.
    public static func requestIdentifier(forMessage id: String) -> String { "push:" + id }

    /// The `userInfo` key that carries the message identifier to the app (for receipts).
    public static let messageIDKey = "unotify-message-id"
}
