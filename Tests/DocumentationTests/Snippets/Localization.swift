// The Swift samples of docs/localization.md, compiled (DocSnippetTests checks that each stands here line for line).
import Foundation
import OpenUserNotifications

enum LocalizationSnippets {
    static func localizedContent() -> UNNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = NSString.localizedUserNotificationString(forKey: "Wake up!", arguments: nil)
        content.body = NSString.localizedUserNotificationString(forKey: "%d new messages", arguments: [3])
        return content
    }
}
