// The Swift samples of docs/legacy-api.md, compiled (DocSnippetTests checks that each stands here line for line).
import OpenUserNotificationsLegacy

enum LegacySnippets {
    @MainActor
    static func scheduling() {
        let notification = UILocalNotification()
        notification.fireDate = Date(timeIntervalSinceNow: 60)
        notification.alertBody = "Time to stretch"
        UIApplication.shared.scheduleLocalNotification(notification)
    }
}
