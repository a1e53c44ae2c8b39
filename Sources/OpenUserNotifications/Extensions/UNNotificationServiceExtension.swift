import Foundation

/// Modifies the content of a remote notification before it is shown: subclass it and override
/// ``didReceive(_:withContentHandler:)``.
///
/// ```swift
/// final class NotificationService: UNNotificationServiceExtension {
///     override func didReceive(_ request: UNNotificationRequest,
///                              withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
///         let content = request.content.mutableCopy() as! UNMutableNotificationContent
///         content.title += " [modified]"
///         contentHandler(content)
///     }
/// }
/// ```
///
/// Register it with ``RemoteNotificationRegistration/setServiceExtension(_:)`` to run it in the app's process, or
/// make it the `main` of an executable with ``runAsProcess(_:)`` and declare that with
/// ``RemoteNotificationRegistration/setServiceExtensionCommand(_:)``. Each push with `mutable-content` gets a new
/// instance; the first call of the content handler counts; after the time budget (30 s)
/// ``serviceExtensionTimeWillExpire()`` is called, and without an answer the original content is shown.
open class UNNotificationServiceExtension: NSObject {
    public override init() {}

    /// Receives the request; call `contentHandler` with the content to show. The default shows it unchanged.
    open func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        contentHandler(request.content)
    }

    /// Called just before the time budget runs out: call the content handler with your best attempt.
    open func serviceExtensionTimeWillExpire() {}
}
