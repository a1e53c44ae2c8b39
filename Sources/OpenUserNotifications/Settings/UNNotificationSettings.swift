import Foundation

/// Whether the app may notify at all.
public enum UNAuthorizationStatus: Int, Sendable, Hashable {
    case notDetermined = 0
    case denied = 1
    case authorized = 2
    case provisional = 3
    case ephemeral = 4
}

/// Whether one kind of presentation is on.
public enum UNNotificationSetting: Int, Sendable, Hashable {
    case notSupported = 0
    case disabled = 1
    case enabled = 2
}

/// How alerts look.
public enum UNAlertStyle: Int, Sendable, Hashable {
    case none = 0
    case banner = 1
    case alert = 2
}

/// When previews show.
public enum UNShowPreviewsSetting: Int, Sendable, Hashable {
    case always = 0
    case whenAuthenticated = 1
    case never = 2
}

/// The app's notification settings, as the person and the system have set them.
///
/// > Note: On Linux, settings come from the answer to `requestAuthorization` (see the authorization policy in
/// > the configuration) or from `unotify authorize`; there is no CarPlay, lock screen or announcement, so those
/// > report `.notSupported`.
open class UNNotificationSettings: NSObject, @unchecked Sendable {
    public let authorizationStatus: UNAuthorizationStatus
    public let soundSetting: UNNotificationSetting
    public let badgeSetting: UNNotificationSetting
    public let alertSetting: UNNotificationSetting
    public let notificationCenterSetting: UNNotificationSetting
    public let lockScreenSetting: UNNotificationSetting
    public let carPlaySetting: UNNotificationSetting
    public let alertStyle: UNAlertStyle
    public let showPreviewsSetting: UNShowPreviewsSetting
    public let criticalAlertSetting: UNNotificationSetting
    public let providesAppNotificationSettings: Bool
    public let announcementSetting: UNNotificationSetting
    public let timeSensitiveSetting: UNNotificationSetting
    public let scheduledDeliverySetting: UNNotificationSetting
    public let directMessagesSetting: UNNotificationSetting

    /// Creates settings with every value given: for tests (through `OpenUserNotificationsTesting`).
    package init(
        authorizationStatus: UNAuthorizationStatus, soundSetting: UNNotificationSetting,
        badgeSetting: UNNotificationSetting, alertSetting: UNNotificationSetting,
        notificationCenterSetting: UNNotificationSetting, lockScreenSetting: UNNotificationSetting = .notSupported,
        carPlaySetting: UNNotificationSetting = .notSupported, alertStyle: UNAlertStyle,
        showPreviewsSetting: UNShowPreviewsSetting = .always, criticalAlertSetting: UNNotificationSetting,
        providesAppNotificationSettings: Bool, announcementSetting: UNNotificationSetting = .notSupported,
        timeSensitiveSetting: UNNotificationSetting, scheduledDeliverySetting: UNNotificationSetting = .disabled,
        directMessagesSetting: UNNotificationSetting = .disabled
    ) {
        self.authorizationStatus = authorizationStatus
        self.soundSetting = soundSetting
        self.badgeSetting = badgeSetting
        self.alertSetting = alertSetting
        self.notificationCenterSetting = notificationCenterSetting
        self.lockScreenSetting = lockScreenSetting
        self.carPlaySetting = carPlaySetting
        self.alertStyle = alertStyle
        self.showPreviewsSetting = showPreviewsSetting
        self.criticalAlertSetting = criticalAlertSetting
        self.providesAppNotificationSettings = providesAppNotificationSettings
        self.announcementSetting = announcementSetting
        self.timeSensitiveSetting = timeSensitiveSetting
        self.scheduledDeliverySetting = scheduledDeliverySetting
        self.directMessagesSetting = directMessagesSetting
    }
}
