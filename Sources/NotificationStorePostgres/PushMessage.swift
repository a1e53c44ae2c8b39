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
    /// After this instant it is no longer fanned out; `nil` for never.
    public var expiresAt: Date?
    /// When the service accepted it.
    public var createdAt: Date
    /// How far it is.
    public var state: State
    /// The devices it was fanned out to so far.
    public var targeted: Int

    /// Creates a push, `scheduled` with nothing fanned out.
    public init(
        id: String = UUID().uuidString.lowercased(), target: PushTarget, content: NotificationPayload,
        sendTime: PushSendTime, expiresAt: Date? = nil, createdAt: Date
    ) {
        self.id = id
        self.target = target
        self.content = content
        self.sendTime = sendTime
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        state = .scheduled
        targeted = 0
    }

    /// The identifier of the pending request a worker makes for each device: `push:` and the message identifier.
    public var requestIdentifier: String { Self.requestIdentifier(forMessage: id) }

    /// `push:` and the message identifier.
    public static func requestIdentifier(forMessage id: String) -> String { "push:" + id }

    /// The `userInfo` key that carries the message identifier to the app (for receipts).
    public static let messageIDKey = "unotify-message-id"
}
