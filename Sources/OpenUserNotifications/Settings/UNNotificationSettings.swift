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
open class UNNotificationSettings: NSObject, NSSecureCoding, @unchecked Sendable {
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

    /// Settings archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes settings archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let authorizationStatus = UNAuthorizationStatus(rawValue: coder.decodeInteger(forKey: "authorizationStatus")) else { return nil }
        guard let soundSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "soundSetting")) else { return nil }
        guard let badgeSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "badgeSetting")) else { return nil }
        guard let alertSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "alertSetting")) else { return nil }
        guard let notificationCenterSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "notificationCenterSetting")) else { return nil }
        guard let lockScreenSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "lockScreenSetting")) else { return nil }
        guard let carPlaySetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "carPlaySetting")) else { return nil }
        guard let alertStyle = UNAlertStyle(rawValue: coder.decodeInteger(forKey: "alertStyle")) else { return nil }
        guard let showPreviewsSetting = UNShowPreviewsSetting(rawValue: coder.decodeInteger(forKey: "showPreviewsSetting")) else { return nil }
        guard let criticalAlertSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "criticalAlertSetting")) else { return nil }
        guard let announcementSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "announcementSetting")) else { return nil }
        guard let timeSensitiveSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "timeSensitiveSetting")) else { return nil }
        guard let scheduledDeliverySetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "scheduledDeliverySetting")) else { return nil }
        guard let directMessagesSetting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: "directMessagesSetting")) else { return nil }
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
        self.announcementSetting = announcementSetting
        self.timeSensitiveSetting = timeSensitiveSetting
        self.scheduledDeliverySetting = scheduledDeliverySetting
        self.directMessagesSetting = directMessagesSetting
        providesAppNotificationSettings = coder.decodeBool(forKey: "providesAppNotificationSettings")
    }

    /// Archives every setting.
    open func encode(with coder: NSCoder) {
        coder.encode(authorizationStatus.rawValue, forKey: "authorizationStatus")
        coder.encode(soundSetting.rawValue, forKey: "soundSetting")
        coder.encode(badgeSetting.rawValue, forKey: "badgeSetting")
        coder.encode(alertSetting.rawValue, forKey: "alertSetting")
        coder.encode(notificationCenterSetting.rawValue, forKey: "notificationCenterSetting")
        coder.encode(lockScreenSetting.rawValue, forKey: "lockScreenSetting")
        coder.encode(carPlaySetting.rawValue, forKey: "carPlaySetting")
        coder.encode(alertStyle.rawValue, forKey: "alertStyle")
        coder.encode(showPreviewsSetting.rawValue, forKey: "showPreviewsSetting")
        coder.encode(criticalAlertSetting.rawValue, forKey: "criticalAlertSetting")
        coder.encode(announcementSetting.rawValue, forKey: "announcementSetting")
        coder.encode(timeSensitiveSetting.rawValue, forKey: "timeSensitiveSetting")
        coder.encode(scheduledDeliverySetting.rawValue, forKey: "scheduledDeliverySetting")
        coder.encode(directMessagesSetting.rawValue, forKey: "directMessagesSetting")
        coder.encode(providesAppNotificationSettings, forKey: "providesAppNotificationSettings")
    }
}
