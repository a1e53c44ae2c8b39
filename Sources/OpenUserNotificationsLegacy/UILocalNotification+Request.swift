import Foundation

/// The `userInfo` key under which a scheduled copy keeps what the UN request has no field for. Private: apps that
/// read the request through the UN API see it, and must not rely on its contents.
let legacyMetadataKey = "OpenUserNotificationsLegacy"

/// How a ``UILocalNotification/repeatInterval`` repeats: the calendar components of the fire date it keeps.
enum RepeatRule: CaseIterable {
    case minute, hour, day, week, month, year

    /// The rule for an interval, the smallest unit winning; `nil` when the interval does not repeat (empty, or only
    /// units without a calendar repeat such as `.second`, `.quarter` or `.era`).
    init?(_ interval: NSCalendar.Unit) {
        if interval.contains(.minute) {
            self = .minute
        } else if interval.contains(.hour) {
            self = .hour
        } else if interval.contains(.day) {
            self = .day
        } else if !interval.isDisjoint(with: [.weekOfYear, .weekOfMonth, .weekday]) {
            self = .week
        } else if interval.contains(.month) {
            self = .month
        } else if interval.contains(.year) {
            self = .year
        } else {
            return nil
        }
    }

    /// The components matched on every repeat.
    var keptComponents: Set<Calendar.Component> {
        switch self {
        case .minute: [.second]
        case .hour: [.minute, .second]
        case .day: [.hour, .minute, .second]
        case .week: [.weekday, .hour, .minute, .second]
        case .month: [.day, .hour, .minute, .second]
        case .year: [.month, .day, .hour, .minute, .second]
        }
    }
}

/// The engine's form of one legacy notification: its trigger and when it fires next.
struct LegacyPlan {
    /// `nil` delivers at once.
    var trigger: UNNotificationTrigger?
    /// `nil` for an immediate or a region notification.
    var nextFireDate: Date?
}

extension UILocalNotification {
    /// The trigger the legacy rules give: a region trigger; nothing (deliver now) for a missing or past one-shot fire
    /// date; otherwise a calendar trigger, fixed in GMT without a ``timeZone`` and floating with one.
    func plan(clock: LegacyApplicationClock) -> LegacyPlan {
        if let region {
            return LegacyPlan(trigger: UNLocationNotificationTrigger(region: region, repeats: !regionTriggersOnce))
        }
        let now = clock.now()
        let rule = RepeatRule(repeatInterval)
        guard let reference = fireDate ?? (rule != nil ? now : nil) else { return LegacyPlan() }
        // Whole seconds: the engine matches seconds, and a notification never fires before its date.
        let fire = Date(timeIntervalSinceReferenceDate: reference.timeIntervalSinceReferenceDate.rounded(.up))
        let gmt = TimeZone(identifier: "GMT")!
        var reading = Calendar(identifier: .gregorian)
        reading.timeZone = timeZone ?? gmt
        let kept = rule?.keptComponents ?? [.year, .month, .day, .hour, .minute, .second]
        var components = reading.dateComponents(kept, from: fire)
        if timeZone == nil { components.timeZone = gmt }
        var matching = Calendar(identifier: .gregorian)
        matching.timeZone = components.timeZone ?? clock.timeZone()
        let next = matching.nextDate(
            after: now, matching: components, matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
        guard let next else { return LegacyPlan() }  // a one-shot whose time has passed fires at once, as in UIKit
        return LegacyPlan(
            trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: rule != nil), nextFireDate: next)
    }

    /// The request the engine stores for this notification.
    func request(identifier: String, trigger: UNNotificationTrigger?) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = alertTitle ?? ""
        content.body = alertBody ?? ""
        content.launchImageName = alertLaunchImage ?? ""
        content.badge = applicationIconBadgeNumber > 0 ? NSNumber(value: applicationIconBadgeNumber) : nil
        content.sound = soundName.map {
            $0 == UILocalNotificationDefaultSoundName ? .default : UNNotificationSound(named: UNNotificationSoundName($0))
        }
        content.categoryIdentifier = category ?? ""
        var metadata: [String: Any] = [
            "id": identifier, "repeatInterval": Int(repeatInterval.rawValue), "hasAction": hasAction,
            "regionTriggersOnce": regionTriggersOnce, "hasUserInfo": userInfo != nil,
        ]
        metadata["fireDate"] = fireDate
        metadata["timeZone"] = timeZone?.identifier
        metadata["repeatCalendar"] = repeatCalendar.map { Self.name(of: $0.identifier) }
        metadata["alertAction"] = alertAction
        metadata["soundName"] = soundName
        var info = userInfo ?? [:]
        info[legacyMetadataKey] = metadata
        content.userInfo = info
        return UNNotificationRequest(identifier: identifier, content: content, trigger: trigger)
    }

    /// Rebuilds the notification behind a request the legacy layer made; `nil` for any other request.
    static func make(from request: UNNotificationRequest) -> UILocalNotification? {
        let content = request.content
        guard let metadata = content.userInfo[legacyMetadataKey] as? [String: Any] else { return nil }
        let notification = UILocalNotification()
        notification.requestIdentifier = request.identifier
        notification.fireDate = metadata["fireDate"] as? Date
        notification.timeZone = (metadata["timeZone"] as? String).flatMap(TimeZone.init(identifier:))
        notification.repeatInterval = NSCalendar.Unit(rawValue: UInt(metadata["repeatInterval"] as? Int ?? 0))
        notification.repeatCalendar = (metadata["repeatCalendar"] as? String).map { Calendar(identifier: identifier(named: $0)) }
        notification.hasAction = metadata["hasAction"] as? Bool ?? true
        notification.alertAction = metadata["alertAction"] as? String
        notification.soundName = metadata["soundName"] as? String
        notification.regionTriggersOnce = metadata["regionTriggersOnce"] as? Bool ?? true
        notification.region = (request.trigger as? UNLocationNotificationTrigger)?.region
        notification.alertTitle = content.title.isEmpty ? nil : content.title
        notification.alertBody = content.body.isEmpty ? nil : content.body
        notification.alertLaunchImage = content.launchImageName.isEmpty ? nil : content.launchImageName
        notification.applicationIconBadgeNumber = content.badge?.intValue ?? 0
        notification.category = content.categoryIdentifier.isEmpty ? nil : content.categoryIdentifier
        var info = content.userInfo
        info[legacyMetadataKey] = nil
        notification.userInfo = metadata["hasUserInfo"] as? Bool == false && info.isEmpty ? nil : info
        return notification
    }

    private static let calendarNames: [(Calendar.Identifier, String)] = [
        (.gregorian, "gregorian"), (.iso8601, "iso8601"), (.buddhist, "buddhist"), (.chinese, "chinese"),
        (.coptic, "coptic"), (.ethiopicAmeteAlem, "ethiopicAmeteAlem"), (.ethiopicAmeteMihret, "ethiopicAmeteMihret"),
        (.hebrew, "hebrew"), (.indian, "indian"), (.islamic, "islamic"), (.islamicCivil, "islamicCivil"),
        (.islamicTabular, "islamicTabular"), (.islamicUmmAlQura, "islamicUmmAlQura"), (.japanese, "japanese"),
        (.persian, "persian"), (.republicOfChina, "republicOfChina"),
    ]

    private static func name(of identifier: Calendar.Identifier) -> String {
        calendarNames.first { $0.0 == identifier }?.1 ?? "gregorian"
    }

    private static func identifier(named name: String) -> Calendar.Identifier {
        calendarNames.first { $0.1 == name }?.0 ?? .gregorian
    }
}

extension LegacyPlan {
    init(trigger: UNNotificationTrigger? = nil) {
        self.init(trigger: trigger, nextFireDate: nil)
    }
}
