import Foundation

/// Receives the outcome of registering for remote notifications and the pushes meant for the app rather than the
/// person: the remote-notification part of Apple's `UIApplicationDelegate` / `NSApplicationDelegate`, under our
/// own names.
///
/// | Apple | OpenUserNotifications |
/// |---|---|
/// | `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` | ``didRegisterForRemoteNotifications(withDeviceToken:)`` |
/// | `application(_:didFailToRegisterForRemoteNotificationsWithError:)` | ``didFailToRegisterForRemoteNotificationsWithError(_:)`` |
/// | `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` | ``didReceiveRemoteNotification(_:fetchCompletionHandler:)`` |
///
/// Every method has an empty default. Pushes that show something also reach the ``UNUserNotificationCenter``'s
/// delegate (`willPresent` while the app runs, `didReceive` when the person answers), as on iOS.
///
/// ```swift
/// final class AppDelegate: RemoteNotificationDelegate, @unchecked Sendable {
///     func didRegisterForRemoteNotifications(withDeviceToken deviceToken: Data) {
///         let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
///         sendToServer(hex)
///     }
///     func didReceiveRemoteNotification(
///         _ userInfo: [AnyHashable: Any], fetchCompletionHandler completionHandler: @escaping @Sendable (RemoteNotificationFetchResult) -> Void
///     ) {
///         refresh { completionHandler(.newData) }
///     }
/// }
/// ```
public protocol RemoteNotificationDelegate: AnyObject, Sendable {
    /// The app was registered; `deviceToken` (32 bytes) is what the provider sends pushes to.
    func didRegisterForRemoteNotifications(withDeviceToken deviceToken: Data)

    /// Registering failed.
    func didFailToRegisterForRemoteNotificationsWithError(_ error: any Error)

    /// A push with `content-available` reached the running app: fetch what it announces, then call the handler.
    ///
    /// - Parameters:
    ///   - userInfo: The whole payload, `aps` included.
    ///   - completionHandler: Call it once when done.
    func didReceiveRemoteNotification(
        _ userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (RemoteNotificationFetchResult) -> Void)
}

extension RemoteNotificationDelegate {
    /// Does nothing.
    public func didRegisterForRemoteNotifications(withDeviceToken deviceToken: Data) {}

    /// Does nothing.
    public func didFailToRegisterForRemoteNotificationsWithError(_ error: any Error) {}

    /// Answers `.noData`.
    public func didReceiveRemoteNotification(
        _ userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (RemoteNotificationFetchResult) -> Void
    ) {
        completionHandler(.noData)
    }
}
