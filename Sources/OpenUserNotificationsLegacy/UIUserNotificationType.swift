/// The kinds of interaction an app asks permission for: a badge, a sound, an alert.
///
/// ```swift
/// let settings = UIUserNotificationSettings(types: [.alert, .badge, .sound], categories: nil)
/// ```
///
/// Mapped onto `UNAuthorizationOptions` (`.badge`, `.sound`, `.alert`).
public struct UIUserNotificationType: OptionSet, Sendable, Hashable {
    /// The raw bits, as UIKit's.
    public let rawValue: UInt

    /// Creates a set from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The app may badge its icon.
    public static let badge = UIUserNotificationType(rawValue: 1 << 0)
    /// The app may play a sound.
    public static let sound = UIUserNotificationType(rawValue: 1 << 1)
    /// The app may show an alert.
    public static let alert = UIUserNotificationType(rawValue: 1 << 2)
}
