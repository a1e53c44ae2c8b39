import Foundation
import NotificationModel

/// The identifier of the response when the person opened the app from the notification.
public let UNNotificationDefaultActionIdentifier: String = ResponseSpec.defaultActionIdentifier

/// The identifier of the response when the person dismissed the notification (sent only for categories with
/// `.customDismissAction`).
public let UNNotificationDismissActionIdentifier: String = ResponseSpec.dismissActionIdentifier

/// A person's answer to a notification: the action they chose.
open class UNNotificationResponse: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
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

    /// Responses archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes a response archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let notification = coder.decodeObject(of: UNNotification.self, forKey: "notification"),
            let actionIdentifier = coder.decodeString(forKey: "actionIdentifier")
        else { return nil }
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }

    /// Archives the response: the notification and the action.
    open func encode(with coder: NSCoder) {
        coder.encode(notification, forKey: "notification")
        coder.encode(actionIdentifier as NSString, forKey: "actionIdentifier")
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationResponse, type(of: other) == type(of: self) else { return false }
        return other.actionIdentifier == actionIdentifier && other.notification.isEqual(notification)
            && (other as? UNTextInputNotificationResponse)?.userText == (self as? UNTextInputNotificationResponse)?.userText
    }

    open override var hash: Int { actionIdentifier.hashValue }
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

    /// Decodes a response archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let userText = coder.decodeString(forKey: "userText") else { return nil }
        self.userText = userText
        super.init(coder: coder)
    }

    /// Archives the response with the text.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(userText as NSString, forKey: "userText")
    }
}
