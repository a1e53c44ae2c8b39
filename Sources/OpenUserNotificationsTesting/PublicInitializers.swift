import Foundation
import OpenUserNotifications

// Apple keeps these initializers closed; tests of an app's delegate need to build the values themselves.

extension UNNotification {
    /// Creates a delivered notification for a test.
    public convenience init(testingDate date: Date, request: UNNotificationRequest) {
        self.init(date: date, request: request)
    }
}

extension UNNotificationResponse {
    /// Creates a response for a test.
    public convenience init(testingNotification notification: UNNotification, actionIdentifier: String) {
        self.init(notification: notification, actionIdentifier: actionIdentifier)
    }
}

extension UNTextInputNotificationResponse {
    /// Creates a text response for a test.
    public convenience init(testingNotification notification: UNNotification, actionIdentifier: String, userText: String) {
        self.init(notification: notification, actionIdentifier: actionIdentifier, userText: userText)
    }
}

extension UNNotificationSettings {
    /// Creates settings for a test: every kind of presentation as `setting`, with the given status.
    public convenience init(
        testingAuthorizationStatus status: UNAuthorizationStatus, setting: UNNotificationSetting = .enabled,
        alertStyle: UNAlertStyle = .banner
    ) {
        self.init(
            authorizationStatus: status, soundSetting: setting, badgeSetting: setting, alertSetting: setting,
            notificationCenterSetting: setting, alertStyle: alertStyle, criticalAlertSetting: setting,
            providesAppNotificationSettings: false, timeSensitiveSetting: setting)
    }
}
