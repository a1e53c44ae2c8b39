import Foundation

/// The app's handler of launch, lifecycle and local-notification events, the pre-iOS 10 way.
///
/// Every method is optional. Hand the delegate to ``UIApplication/launch(delegate:)``, which calls
/// `application(_:didFinishLaunchingWithOptions:)`; the others follow as notifications fire and are answered.
///
/// ```swift
/// final class AppDelegate: UIResponder, UIApplicationDelegate {
///     func application(_ application: UIApplication, didReceive notification: UILocalNotification) {
///         print("fired while running:", notification.alertBody ?? "")
///     }
/// }
/// ```
///
/// > Note: On Linux, the methods run on the main actor, as UIKit's do on the main thread.
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    /// The app has launched; `launchOptions[.localNotification]` holds the notification whose tap launched it.
    ///
    /// - Returns: Ignored for local notifications (UIKit uses it for URLs).
    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool

    /// A local notification fired while the app ran (nothing is shown then), or the person tapped one while the app
    /// was in the background.
    func application(_ application: UIApplication, didReceive notification: UILocalNotification)

    /// The person chose one of a notification's actions. Call `completionHandler` when done.
    func application(
        _ application: UIApplication, handleActionWithIdentifier identifier: String?,
        for notification: UILocalNotification, completionHandler: @escaping () -> Void)

    /// The person chose one of a notification's actions, with the typed text under
    /// ``UIUserNotificationActionResponseTypedTextKey`` for a `.textInput` action. Called instead of the form without
    /// `responseInfo` when implemented (as on iOS 9); by default it calls that form.
    func application(
        _ application: UIApplication, handleActionWithIdentifier identifier: String?,
        for notification: UILocalNotification, withResponseInfo responseInfo: [AnyHashable: Any],
        completionHandler: @escaping () -> Void)

    /// The answer to ``UIApplication/registerUserNotificationSettings(_:)``: the types granted.
    func application(_ application: UIApplication, didRegister notificationSettings: UIUserNotificationSettings)

    /// The app is about to come back to the foreground (see ``UIApplication/enterForeground()``).
    func applicationWillEnterForeground(_ application: UIApplication)

    /// The app became active after launching or coming back.
    func applicationDidBecomeActive(_ application: UIApplication)

    /// The app went to the background (see ``UIApplication/enterBackground()``).
    func applicationDidEnterBackground(_ application: UIApplication)

    /// The app is about to end (see ``UIApplication/terminate()``).
    func applicationWillTerminate(_ application: UIApplication)
}

extension UIApplicationDelegate {
    /// Does nothing and returns `true`.
    public func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { true }

    /// Does nothing.
    public func application(_ application: UIApplication, didReceive notification: UILocalNotification) {}

    /// Calls `completionHandler`.
    public func application(
        _ application: UIApplication, handleActionWithIdentifier identifier: String?,
        for notification: UILocalNotification, completionHandler: @escaping () -> Void
    ) {
        completionHandler()
    }

    /// Calls the form without `responseInfo`.
    public func application(
        _ application: UIApplication, handleActionWithIdentifier identifier: String?,
        for notification: UILocalNotification, withResponseInfo responseInfo: [AnyHashable: Any],
        completionHandler: @escaping () -> Void
    ) {
        self.application(application, handleActionWithIdentifier: identifier, for: notification, completionHandler: completionHandler)
    }

    /// Does nothing.
    public func application(_ application: UIApplication, didRegister notificationSettings: UIUserNotificationSettings) {}

    /// Does nothing.
    public func applicationWillEnterForeground(_ application: UIApplication) {}

    /// Does nothing.
    public func applicationDidBecomeActive(_ application: UIApplication) {}

    /// Does nothing.
    public func applicationDidEnterBackground(_ application: UIApplication) {}

    /// Does nothing.
    public func applicationWillTerminate(_ application: UIApplication) {}
}
