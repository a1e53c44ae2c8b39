// The seed's "简单场景模拟" (seed 003) through the legacy API: reminders 1 and 3 minutes after the app was last
// opened, all reset whenever it opens again. Runs against `UIApplication.shared` (the real store of this user),
// simulates going away and coming back, and exits; pass `--keep` to leave the reminders scheduled.
import OpenUserNotificationsLegacy

final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        print("launched: resetting the reminders")
        resetReminders(application)
        return true
    }

    func applicationWillEnterForeground(_ application: UIApplication) {
        print("opened again: resetting the reminders")
        resetReminders(application)
    }

    /// "若一个月之内打开APP,则所有本地通知重置" (the demo uses 1 and 3 minutes instead of 3 days, 7 days, a month).
    private func resetReminders(_ application: UIApplication) {
        application.cancelAllLocalNotifications()
        for minutes in [1, 3] {
            let notification = UILocalNotification()
            notification.fireDate = Date(timeIntervalSinceNow: Double(minutes) * 60)
            notification.alertBody = "最近添加了诸多有趣的特性,是否立即体验?"
            notification.soundName = UILocalNotificationDefaultSoundName
            application.scheduleLocalNotification(notification)
        }
    }
}

@MainActor
func list(_ application: UIApplication) async {
    for notification in await application.fetchScheduledLocalNotifications() {
        print("  scheduled for \(notification.fireDate.map { "\($0)" } ?? "now"): \(notification.alertBody ?? "")")
    }
}

let application = UIApplication.shared
let delegate = AppDelegate()
await application.launch(delegate: delegate)
await list(application)
print("going to the background")
await application.enterBackground()
try? await Task.sleep(for: .seconds(2))  // away for a moment, well under a minute
await application.enterForeground()
await list(application)
if !CommandLine.arguments.contains("--keep") {
    application.cancelAllLocalNotifications()
    await application.settle()
    print("cancelled the reminders (run with --keep to leave them scheduled)")
}
