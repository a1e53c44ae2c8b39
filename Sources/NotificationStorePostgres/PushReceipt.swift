import Foundation

/// What a device reports of a push it got (docs/push-service.md): received, opened (the default action), dismissed
/// (the custom dismiss action) or another action, as seed 004's app reports an open receipt with
/// `handleReceiveRemoteNotification`.
///
/// The store keeps one receipt per device, message and kind: reporting again (a client retrying after a lost answer)
/// changes nothing. A device that reports opened, dismissed or an action has received the notification too, so the
/// store records `received` with it (`opened <= received` always).
///
/// ```swift
/// let receipt = PushReceipt(messageID: id, kind: .opened, date: clock.now)
/// try await store.recordReceipts([receipt], deviceID: "phone-1")
/// ```
public struct PushReceipt: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The notification service extension or `willPresent` saw it.
        case received
        /// The person opened it (`UNNotificationDefaultActionIdentifier`).
        case opened
        /// The person dismissed it (`UNNotificationDismissActionIdentifier`, with a custom dismiss action).
        case dismissed
        /// The person chose another action (``PushReceipt/action``).
        case action
    }

    /// The push's message identifier (`unotify-message-id` in the notification's `userInfo`).
    public var messageID: String
    /// What happened.
    public var kind: Kind
    /// The action's identifier, for ``Kind/action``.
    public var action: String?
    /// When it happened, as the device says.
    public var date: Date

    /// Creates a receipt.
    public init(messageID: String, kind: Kind, action: String? = nil, date: Date) {
        self.messageID = messageID
        self.kind = kind
        self.action = action
        self.date = date
    }
}
