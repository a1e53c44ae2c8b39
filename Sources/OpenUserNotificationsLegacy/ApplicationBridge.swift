import Foundation

/// The `UNUserNotificationCenter` delegate that hands the engine's events to a ``UIApplication``: a fire while the
/// app is in the foreground, and a person's answers.
final class ApplicationBridge: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {  // only a `weak let`
    private weak let application: UIApplication?

    init(application: UIApplication) {
        self.application = application
    }

    /// A notification fired while the app runs: in the foreground UIKit shows nothing and calls the delegate.
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        await application?.notificationDidFire(notification) ?? []
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        await application?.receive(response)
    }
}
