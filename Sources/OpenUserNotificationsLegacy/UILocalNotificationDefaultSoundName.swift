/// The name that stands for the system's default notification sound in ``UILocalNotification/soundName``.
///
/// ```swift
/// notification.soundName = UILocalNotificationDefaultSoundName
/// ```
///
/// Mapped onto `UNNotificationSound.default`.
public let UILocalNotificationDefaultSoundName: String = "UILocalNotificationDefaultSoundName"
