// The executable's `main`: what an app declares with setServiceExtensionCommand (RichNotificationTests).
import OpenUserNotifications

await UNNotificationServiceExtension.runAsProcess { NotificationService() }
