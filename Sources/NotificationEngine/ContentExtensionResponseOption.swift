import Foundation

/// What a content extension answers when a person presses one of the notification's actions: Apple's
/// `UNNotificationContentExtensionResponseOption`, as the system side carries it.
public enum ContentExtensionResponseOption: String, Codable, Sendable, Hashable, CaseIterable {
    /// The notification stays; the app hears nothing.
    case doNotDismiss
    /// The notification goes; the app hears nothing.
    case dismiss
    /// The notification goes and the action reaches the app as a click on a desktop notification does.
    case dismissAndForwardAction
}
