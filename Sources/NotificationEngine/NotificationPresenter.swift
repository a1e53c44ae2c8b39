import Foundation
import NotificationModel

/// Shows delivered notifications to a person: the terminal today, the desktop's notification server later.
public protocol NotificationPresenter: Sendable {
    /// A short name recorded in the history, such as `terminal` or `desktop`.
    var name: String { get }

    /// Shows a notification with the given options (already limited to what the app is authorized for).
    ///
    /// - Parameters:
    ///   - notification: The notification; showing one with the identifier of a notification on screen
    ///     replaces it.
    ///   - options: Banner, list, sound and badge, as decided by the app or by default.
    ///   - category: The notification's category, whose actions become buttons, when the app registered one.
    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async

    /// Takes notifications off screen after the app removed them.
    func withdraw(appID: String, identifiers: [String]) async

    /// Shows the app's new badge count.
    func badgeDidChange(appID: String, count: Int) async
}

/// An app whose process is running and answering for its notifications: Apple's foreground app.
///
/// The API module implements it for `UNUserNotificationCenter`, forwarding to the app's delegate.
public protocol ForegroundApp: Sendable {
    /// Asks how to present a notification that arrives while the app runs.
    /// - Returns: The options, or `nil` when the app has nothing to say (no delegate, no answer).
    func willPresent(_ notification: DeliveredNotification) async -> PresentationSet?

    /// Hands the app a person's response.
    /// - Returns: Whether the app took it; `false` (no delegate yet) keeps it queued for later.
    func didReceive(_ response: ResponseSpec) async -> Bool
}

/// Starts an app that is not running so that it receives a response queued for it: the analogue of iOS launching
/// an app in the background. The daemon implements it with the app's registered launch command.
public protocol AppLauncher: Sendable {
    /// Called when a response was queued for `appID` and no running process of the app took it.
    func launch(appID: String) async
}
