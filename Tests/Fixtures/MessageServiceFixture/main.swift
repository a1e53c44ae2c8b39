// The executable's `main`: what a messaging app declares with setServiceExtensionCommand
// (CommunicationNotificationTests, and the dunst test that took docs/images/communication-notification.png).
import OpenUserNotifications

await UNNotificationServiceExtension.runAsProcess { NotificationService() }
