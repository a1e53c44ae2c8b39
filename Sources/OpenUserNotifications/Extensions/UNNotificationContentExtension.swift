import Foundation

/// A notification content extension: the custom view of an app's notifications of some categories, with the first
/// say on the actions pressed below it.
///
/// As in UserNotificationsUI, where it is a view controller of the extension bundle. On Linux there is no UIKit and
/// no notification server embeds an app's view, so the view is HTML, shown by the web center of `unotifyd` in a
/// sandboxed frame (no script access to the center; no network unless the app declared it), with the category's
/// action buttons below it, as iOS draws them.
///
/// > Note: On Linux, `didReceive(_ notification:)` returns the view's HTML instead of updating a view
/// > controller's views, and may suspend. A new instance draws each view and answers each action, in the app's
/// > process while it runs (``UNUserNotificationCenter/setContentExtension(categories:allowsNetwork:_:)``) or in the
/// > executable it declares (its `main` calls ``ContentExtensionProcess/run(_:)``), so an instance keeps nothing from
/// > the view to the action. `mediaPlayPauseButtonType` and the other media members, `preferredContentSize` and
/// > `UNNotificationExtensionDefaultContentHidden` have no counterpart (the frame has a fixed height; the
/// > notification's own title and body stay shown).
///
/// ```swift
/// final class InviteView: UNNotificationContentExtension {
///     func didReceive(_ notification: UNNotification) async -> String {
///         "<h1>\(notification.request.content.title)</h1><p>Friday, 19:00</p>"
///     }
///
///     func didReceive(
///         _ response: UNNotificationResponse,
///         completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
///     ) {
///         completion(response.actionIdentifier == "accept" ? .dismissAndForwardAction : .doNotDismiss)
///     }
/// }
/// ```
public protocol UNNotificationContentExtension: AnyObject {
    /// Draws a notification: the HTML of its view (a document or a fragment, UTF-8, at most 256 KiB by default).
    func didReceive(_ notification: UNNotification) async -> String

    /// A person pressed one of the notification's actions below the view: call `completion` once with what should
    /// happen. Without an implementation, the notification goes and the action reaches the app, as on iOS.
    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void)
}

extension UNNotificationContentExtension {
    /// The notification goes and the action reaches the app, as on iOS for an extension that does not implement it.
    public func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        completion(.dismissAndForwardAction)
    }
}
