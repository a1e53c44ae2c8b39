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
/// > Note: On Linux, running extensions for incoming pushes arrives with remote notifications.
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
