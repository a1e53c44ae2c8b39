import Foundation
import NotificationModel

/// The identifier of the response when the person opened the app from the notification.
public let UNNotificationDefaultActionIdentifier: String = ResponseSpec.defaultActionIdentifier

/// The identifier of the response when the person dismissed the notification (sent only for categories with
/// `.customDismissAction`).
public let UNNotificationDismissActionIdentifier: String = ResponseSpec.dismissActionIdentifier

/// A person's answer to a notification: the action they chose.
open class UNNotificationResponse: NSObject, NSCopying, @unchecked Sendable {
    /// The notification answered.
    public let notification: UNNotification
    /// The chosen action, ``UNNotificationDefaultActionIdentifier`` or ``UNNotificationDismissActionIdentifier``.
    public let actionIdentifier: String

    /// Creates a response: for tests (public through `OpenUserNotificationsTesting`).
    package init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }

    package static func make(_ spec: ResponseSpec) -> UNNotificationResponse {
        let notification = UNNotification(delivered: spec.notification)
        if let text = spec.userText {
            return UNTextInputNotificationResponse(
                notification: notification, actionIdentifier: spec.actionIdentifier, userText: text)
        }
        return UNNotificationResponse(notification: notification, actionIdentifier: spec.actionIdentifier)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A response to a text-input action, with the text the person typed.
open class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {
    /// The text.
    public let userText: String

    /// Creates a response: for tests (public through `OpenUserNotificationsTesting`).
    package init(notification: UNNotification, actionIdentifier: String, userText: String) {
        self.userText = userText
        super.init(notification: notification, actionIdentifier: actionIdentifier)
    }
}
