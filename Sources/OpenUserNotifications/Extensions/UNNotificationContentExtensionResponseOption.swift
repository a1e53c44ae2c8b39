import NotificationEngine

/// What a content extension wants done after a person pressed one of the notification's actions below its view.
///
/// As in UserNotificationsUI. The web center (`unotifyd`'s browser notification center) does it: the notification
/// stays, goes, or goes and the action reaches the app's delegate as a click on a desktop notification does.
public enum UNNotificationContentExtensionResponseOption: UInt, Sendable, Hashable {
    /// The notification stays listed (and is marked read); the app hears nothing.
    case doNotDismiss = 0
    /// The notification goes; the app hears nothing.
    case dismiss = 1
    /// The notification goes, and the action reaches the app (`userNotificationCenter(_:didReceive:…)`).
    case dismissAndForwardAction = 2

    /// The option as the system carries it.
    package var engineOption: ContentExtensionResponseOption {
        switch self {
        case .doNotDismiss: .doNotDismiss
        case .dismiss: .dismiss
        case .dismissAndForwardAction: .dismissAndForwardAction
        }
    }
}
