import Foundation

/// A person's answer to a delivered notification: an action, the default action (a tap), a dismissal or text.
public struct ResponseSpec: Sendable, Hashable, Codable {
    public var notification: DeliveredNotification
    public var actionIdentifier: String
    /// The text typed into a text-input action.
    public var userText: String?
    public var date: Date

    public init(notification: DeliveredNotification, actionIdentifier: String, userText: String? = nil, date: Date) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        self.userText = userText
        self.date = date
    }

    /// Apple's identifier for tapping the notification itself.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// Apple's identifier for dismissing it (sent only for categories with `customDismissAction`).
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
}
