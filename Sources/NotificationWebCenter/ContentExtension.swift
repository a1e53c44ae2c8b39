import NotificationEngine
import NotificationModel

/// One app's notification content extension as the center reaches it: it draws a notification as HTML and hears
/// the actions pressed below that view first.
///
/// The center has two kinds: the executable an app declared (``ContentExtensionDeclaration/command``, run by
/// ``ProcessContentExtension``, one process per call), and one registered with
/// ``ContentExtensions/register(appID:categories:allowsNetwork:_:)``: the daemon registers an app's connection for the
/// extension in the app's process (`UNUserNotificationCenter.setContentExtension(categories:allowsNetwork:_:)`), and
/// tests or code that composes a center register their own.
///
/// ```swift
/// struct InviteView: ContentExtension {
///     func view(of notification: DeliveredNotification) async throws -> String {
///         "<h1>\(notification.request.content.title)</h1>"
///     }
///     func answer(_ response: ResponseSpec) async throws -> ContentExtensionResponseOption {
///         .dismissAndForwardAction
///     }
/// }
/// center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], InviteView())
/// ```
public protocol ContentExtension: Sendable {
    /// `didReceive(_ notification:)`: the view of a notification, an HTML document or fragment (UTF-8). The center
    /// shows it in a sandboxed frame of its own, with no script access to the center and, unless the app declared
    /// otherwise, no network.
    /// - Throws: Anything: the center then shows the plain notification with a note.
    func view(of notification: DeliveredNotification) async throws -> String

    /// `didReceive(_ response:completionHandler:)`: a person pressed one of the category's actions below the view.
    /// - Returns: Whether the notification stays, goes, or goes and the action reaches the app.
    /// - Throws: Anything: the center then hands the action to the app, as if the extension had said
    ///   ``ContentExtensionResponseOption/dismissAndForwardAction``.
    func answer(_ response: ResponseSpec) async throws -> ContentExtensionResponseOption
}
