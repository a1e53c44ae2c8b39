import Foundation

/// What makes a notification fire: the checked, `Codable` form of `UNNotificationTrigger`.
public enum TriggerSpec: Sendable, Hashable, Codable {
    /// Fires `interval` seconds after it was added, and every `interval` seconds after that when `repeats`.
    case timeInterval(TimeInterval, repeats: Bool)
    /// Fires when the wall clock matches `components`.
    case calendar(CalendarComponents, repeats: Bool, matching: CalendarMatching)
    /// Fires when the device enters or leaves a region.
    case location(RegionSpec, repeats: Bool)
    /// Marks a notification that came from a remote push.
    case push

    public var repeats: Bool {
        switch self {
        case .timeInterval(_, let repeats), .calendar(_, let repeats, _), .location(_, let repeats): repeats
        case .push: false
        }
    }
}

/// How calendar components are matched against dates.
public enum CalendarMatching: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's behaviour, Foundation's `.nextTime` policy: `day: 31` in a 30-day month fires on the 1st of the
    /// next month (rdar 32865247), a time inside a DST gap fires at the end of the gap.
    case apple
    /// Foundation's `.strict` policy: months without the day are skipped.
    case strict
}

/// The date components of a calendar trigger, kept apart from `DateComponents` so that they are `Hashable` by
/// value (identical components share the work of re-planning) and stable in the store.
public struct CalendarComponents: Sendable, Hashable, Codable {
    public var era: Int?
    public var year: Int?
    public var month: Int?
    public var day: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?
    public var nanosecond: Int?
    /// 1 is Sunday, as in Apple's Gregorian calendar.
    public var weekday: Int?
    public var weekdayOrdinal: Int?
    public var quarter: Int?
    public var weekOfMonth: Int?
    public var weekOfYear: Int?
    public var yearForWeekOfYear: Int?
    /// An IANA zone identifier; `nil` means floating wall-clock time in the system zone.
    public var timeZoneIdentifier: String?

    public init() {}

    public init(_ components: DateComponents) {
        era = components.era
        year = components.year
        month = components.month
        day = components.day
        hour = components.hour
        minute = components.minute
        second = components.second
        nanosecond = components.nanosecond
        weekday = components.weekday
        weekdayOrdinal = components.weekdayOrdinal
        quarter = components.quarter
        weekOfMonth = components.weekOfMonth
        weekOfYear = components.weekOfYear
        yearForWeekOfYear = components.yearForWeekOfYear
        timeZoneIdentifier = components.timeZone?.identifier
    }

    /// The components as Foundation's `DateComponents`, with the time zone when there is one.
    public var dateComponents: DateComponents {
        var components = DateComponents()
        components.era = era
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        components.nanosecond = nanosecond
        components.weekday = weekday
        components.weekdayOrdinal = weekdayOrdinal
        components.quarter = quarter
        components.weekOfMonth = weekOfMonth
        components.weekOfYear = weekOfYear
        components.yearForWeekOfYear = yearForWeekOfYear
        components.timeZone = timeZoneIdentifier.flatMap(TimeZone.init(identifier:))
        return components
    }

    /// Whether the trigger follows the system zone (no zone of its own).
    public var isFloating: Bool { timeZoneIdentifier == nil }

    /// Whether no component is set at all.
    public var isEmpty: Bool {
        var copy = self
        copy.timeZoneIdentifier = nil
        return copy == CalendarComponents()
    }
}

/// A circular geographic region, the checked form of `CLCircularRegion`.
public struct RegionSpec: Sendable, Hashable, Codable {
    public var identifier: String
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var radius: Double
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool

    public init(
        identifier: String, latitude: Double, longitude: Double, radius: Double, notifyOnEntry: Bool = true,
        notifyOnExit: Bool = true
    ) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }
}
