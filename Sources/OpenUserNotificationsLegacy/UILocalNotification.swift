import Foundation

/// A notification the app schedules for delivery at a date and time (or when the person enters or leaves a region),
/// the pre-iOS 10 way.
///
/// Create one, set its fire date and content, and hand it to ``UIApplication/scheduleLocalNotification(_:)``
/// (which stores a copy) or ``UIApplication/presentLocalNotificationNow(_:)``:
///
/// ```swift
/// let notification = UILocalNotification()
/// notification.fireDate = Date(timeIntervalSinceNow: 60)
/// notification.alertBody = "Time to stretch"
/// notification.soundName = UILocalNotificationDefaultSoundName
/// UIApplication.shared.scheduleLocalNotification(notification)
/// ```
///
/// > Note: On Linux, this is a thin layer over `UNNotificationRequest`: see docs/legacy-api.md for the mapping of
/// > every property. UIKit's class is an `NSObject` that also adopts `NSSecureCoding`; this one adopts `NSCopying`
/// > only and is `final`.
public final class UILocalNotification: NSObject, NSCopying {
    /// The date and time the system delivers the notification; `nil` or a date in the past delivers it at once.
    ///
    /// Interpreted according to ``timeZone``.
    public var fireDate: Date?

    /// The time zone of ``fireDate``.
    ///
    /// `nil` (the default) makes the fire date an absolute instant (a countdown timer); a zone makes it a wall-clock
    /// time, read in that zone, that follows the system's zone changes (an alarm clock), as UIKit documents.
    public var timeZone: TimeZone?

    /// The calendar unit at which the notification repeats; empty (the default) fires once.
    ///
    /// `.minute`, `.hour`, `.day`, `.weekOfYear` (also `.weekday`, `.weekOfMonth`), `.month` and `.year` repeat;
    /// other units fire once. See docs/legacy-api.md.
    public var repeatInterval: NSCalendar.Unit = []

    /// The calendar used to repeat the notification; `nil` uses the Gregorian calendar.
    ///
    /// > Note: On Linux, the engine matches dates in the Gregorian calendar only; another calendar is kept but not used.
    public var repeatCalendar: Calendar?

    /// The region whose boundary delivers the notification. Do not set a ``fireDate`` too.
    public var region: CLRegion?

    /// Whether crossing the region's boundary delivers one notification only (the default) or one each time.
    public var regionTriggersOnce = true

    /// The message shown.
    public var alertBody: String?

    /// Whether the alert offers an action (the lock screen's slider); `true` by default.
    ///
    /// > Note: On Linux, kept and returned but not shown.
    public var hasAction = true

    /// The title of the alert's action (the lock screen's "slide to …" text).
    ///
    /// > Note: On Linux, kept and returned but not shown.
    public var alertAction: String?

    /// The image shown when the app launches from the notification; stored as the content's `launchImageName`.
    public var alertLaunchImage: String?

    /// A short title shown above the message.
    public var alertTitle: String?

    /// The sound file to play, or ``UILocalNotificationDefaultSoundName``; `nil` plays none.
    public var soundName: String?

    /// The number to show on the app's icon; 0 (the default) leaves the badge unchanged.
    public var applicationIconBadgeNumber = 0

    /// Custom data for the app; property-list values only.
    public var userInfo: [AnyHashable: Any]?

    /// The identifier of a registered ``UIUserNotificationCategory`` whose actions the notification offers.
    public var category: String?

    /// The identifier of the request behind a copy the system holds (a scheduled or delivered notification).
    var requestIdentifier: String?

    /// Creates an empty notification that fires at once.
    public override init() {
        super.init()
    }

    /// Returns a copy with the same values.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = UILocalNotification()
        copy.fireDate = fireDate
        copy.timeZone = timeZone
        copy.repeatInterval = repeatInterval
        copy.repeatCalendar = repeatCalendar
        copy.region = region
        copy.regionTriggersOnce = regionTriggersOnce
        copy.alertBody = alertBody
        copy.hasAction = hasAction
        copy.alertAction = alertAction
        copy.alertLaunchImage = alertLaunchImage
        copy.alertTitle = alertTitle
        copy.soundName = soundName
        copy.applicationIconBadgeNumber = applicationIconBadgeNumber
        copy.userInfo = userInfo
        copy.category = category
        copy.requestIdentifier = requestIdentifier
        return copy
    }

    /// Whether two notifications have the same values (every public property; which scheduled copy they are does not
    /// count).
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UILocalNotification else { return false }
        return fireDate == other.fireDate && timeZone == other.timeZone && repeatInterval == other.repeatInterval
            && repeatCalendar?.identifier == other.repeatCalendar?.identifier
            && region?.identifier == other.region?.identifier && regionTriggersOnce == other.regionTriggersOnce
            && alertBody == other.alertBody && hasAction == other.hasAction && alertAction == other.alertAction
            && alertLaunchImage == other.alertLaunchImage && alertTitle == other.alertTitle
            && soundName == other.soundName && applicationIconBadgeNumber == other.applicationIconBadgeNumber
            && category == other.category
            && Self.same(userInfo ?? [:], other.userInfo ?? [:])
    }

    /// Compares property-list values, nested ones included.
    private static func same(_ first: Any, _ second: Any) -> Bool {
        switch (first, second) {
        case let (first as [AnyHashable: Any], second as [AnyHashable: Any]):
            return first.count == second.count
                && first.allSatisfy { key, value in second[key].map { same(value, $0) } ?? false }
        case let (first as [Any], second as [Any]):
            return first.count == second.count && zip(first, second).allSatisfy { same($0, $1) }
        case let (first as AnyHashable, second as AnyHashable):
            return first == second
        default:
            return false
        }
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(fireDate)
        hasher.combine(alertBody)
        hasher.combine(alertTitle)
        hasher.combine(category)
        return hasher.finalize()
    }

    /// A description in UIKit's style, for logs.
    public override var description: String {
        func show(_ value: Any?) -> String { value.map { "\($0)" } ?? "(null)" }
        return "<UILocalNotification>{fire date = \(show(fireDate)), time zone = \(show(timeZone?.identifier)), "
            + "repeat interval = \(repeatInterval.rawValue), alert body = \(show(alertBody)), "
            + "category = \(show(category)), user info = \(show(userInfo))}"
    }
}
