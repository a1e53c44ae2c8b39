import Foundation
import NotificationModel

/// Fire-date arithmetic: pure functions of a trigger, an instant and a calendar.
///
/// Calendar triggers follow Foundation's `Calendar.nextDate(after:matching:matchingPolicy:repeatedTimePolicy:
/// direction:)`, which is what Apple's `UNCalendarNotificationTrigger` is documented to use: only the given
/// components are matched, a time inside a daylight-saving gap fires at the first instant after the gap, a time
/// inside an overlap fires once (at its first occurrence), and weekday 1 is Sunday. Daylight-saving changes are
/// handled here rather than by Foundation, for gaps and overlaps of any length (``nextCalendarDate(after:matching:
/// policy:calendar:)``).
public enum TriggerPlanner {
    /// The shortest interval a repeating time-interval trigger may have, as on Apple platforms.
    public static let minimumRepeatingInterval: TimeInterval = 60

    /// Checks the rules Apple's initializers trap on, so that `add` can answer with an error instead.
    ///
    /// - Throws: ``EngineError`` with ``EngineError/Code/invalidTrigger``.
    public static func validate(_ trigger: TriggerSpec) throws {
        switch trigger {
        case .timeInterval(let interval, let repeats):
            guard interval.isFinite, interval > 0 else {
                throw EngineError(.invalidTrigger, "time interval must be greater than 0 (got \(interval))")
            }
            if repeats, interval < minimumRepeatingInterval {
                throw EngineError(.invalidTrigger, "time interval must be at least 60 if repeating (got \(interval))")
            }
        case .calendar(let components, _, _):
            guard !components.isEmpty else {
                throw EngineError(.invalidTrigger, "calendar trigger has no date components to match")
            }
            if let zone = components.timeZoneIdentifier, TimeZone(identifier: zone) == nil {
                throw EngineError(.invalidTrigger, "unknown time zone '\(zone)'")
            }
            // Foundation's date matching does not return (minutes, at 100 % CPU) for a weekday ordinal of 6 or more,
            // which no month has: refused here, so that no way in can stall the engine. No date matches it anyway.
            if let ordinal = components.weekdayOrdinal, ordinal > 5 {
                throw EngineError(.invalidNoDate, "no date matches weekdayOrdinal=\(ordinal): a month has 1 to 5 of each weekday")
            }
        case .location(let region, _):
            guard region.radius.isFinite, region.radius > 0, abs(region.latitude) <= 90, abs(region.longitude) <= 180
            else {
                throw EngineError(.invalidTrigger, "region '\(region.identifier)' has an invalid center or radius")
            }
            guard region.notifyOnEntry || region.notifyOnExit else {
                throw EngineError(.invalidTrigger, "region '\(region.identifier)' notifies on neither entry nor exit")
            }
        case .push:
            break
        }
    }

    /// The first instant a newly added request fires.
    ///
    /// - Parameters:
    ///   - trigger: The request's trigger; `nil` fires at once.
    ///   - addedAt: When `add` accepted it.
    ///   - calendar: The system calendar, whose zone floating calendar components follow.
    /// - Returns: The instant, or `nil` when the trigger has no date (location) or can never match.
    public static func firstFireDate(for trigger: TriggerSpec?, addedAt: Date, calendar: Calendar) -> Date? {
        switch trigger {
        case nil, .push: addedAt
        case .timeInterval(let interval, _): addedAt.addingTimeInterval(interval)
        case .calendar(let components, _, let matching):
            nextCalendarDate(after: addedAt, matching: components, policy: matching, calendar: calendar)
        case .location: nil
        }
    }

    /// The instant a repeating request fires next after a fire that was due at `due` and handled at `now`.
    ///
    /// Periods that were missed entirely (the machine was off) are skipped: the result is always after `now`, so a
    /// repeating request is delivered once for all the periods it missed and then keeps its schedule.
    ///
    /// - Returns: `nil` when the trigger does not repeat or can never match again.
    public static func nextFireDate(after due: Date, now: Date, for trigger: TriggerSpec?, calendar: Calendar) -> Date? {
        guard let trigger, trigger.repeats else { return nil }
        switch trigger {
        case .timeInterval(let interval, _):
            let elapsed = now.timeIntervalSince(due)
            let periods = max(1, (elapsed / interval).rounded(.down) + 1)
            return due.addingTimeInterval(periods * interval)
        case .calendar(let components, _, let matching):
            return nextCalendarDate(after: max(due, now), matching: components, policy: matching, calendar: calendar)
        case .location, .push:
            return nil
        }
    }

    /// The next instant strictly after `date` that matches `components`.
    ///
    /// Components with a time zone are matched in that zone (a fixed instant); without one, in `calendar`'s zone.
    ///
    /// The components are matched against wall-clock readings with Foundation's `Calendar.nextDate(after:matching:
    /// matchingPolicy:repeatedTimePolicy:direction:)` in a zone without transitions (UTC, with `calendar`'s other
    /// settings), and each matching reading becomes the first instant at which the zone's clocks read it or later
    /// (`firstInstant(reading:in:)`): the instant itself, the end of a daylight-saving gap that skips it, or the
    /// first of the two instants of an overlap. Foundation's matching in the zone itself skips a whole day when the
    /// time falls in a gap that is not one hour long (Lord Howe's half hour, Troll's two hours) and in a few
    /// overlaps, so the zone is left out of the matching.
    ///
    /// ```swift
    /// // Lord Howe springs forward from 2:00 to 2:30 on 2026-10-04: a daily 2:15 fires at 2:30 that day.
    /// var calendar = Calendar(identifier: .gregorian)
    /// calendar.timeZone = TimeZone(identifier: "Australia/Lord_Howe")!
    /// var daily = CalendarComponents()
    /// (daily.hour, daily.minute) = (2, 15)
    /// let next = TriggerPlanner.nextCalendarDate(
    ///     after: try Date("2026-10-03T00:00:00Z", strategy: .iso8601), matching: daily, policy: .apple,
    ///     calendar: calendar)  // 2026-10-03T15:30:00Z, 2:30 local on the 4th
    /// ```
    ///
    /// - Parameters:
    ///   - date: The instant the result must follow.
    ///   - components: What to match; their zone, when they have one, replaces `calendar`'s.
    ///   - policy: `.apple` (Foundation's `.nextTime`) or `.strict`.
    ///   - calendar: The calendar, whose zone floating components follow.
    /// - Returns: The instant, or `nil` when no later date matches.
    public static func nextCalendarDate(
        after date: Date, matching components: CalendarComponents, policy: CalendarMatching, calendar: Calendar
    ) -> Date? {
        let zone = components.timeZoneIdentifier.flatMap(TimeZone.init(identifier:)) ?? calendar.timeZone
        var wallCalendar = calendar
        wallCalendar.timeZone = utc
        var match = components.dateComponents
        match.timeZone = nil
        var reading = date.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: date)))
        // More than one round only during the second pass through an overlap, for readings the first pass showed.
        while let next = wallCalendar.nextDate(
            after: reading, matching: match, matchingPolicy: policy == .strict ? .strict : .nextTime,
            repeatedTimePolicy: .first, direction: .forward)
        {
            let instant = firstInstant(reading: next, in: zone)
            if instant > date { return instant }
            reading = next
        }
        return nil
    }

    /// The first instant at which `zone`'s clocks read `wall` or later.
    ///
    /// `wall` is a clock reading written as the instant at which UTC clocks read it. Most readings happen once, at
    /// that instant; a reading skipped by a gap (2:15 when the clocks go from 2:00 to 2:30) gives the end of the
    /// gap, when the clocks first read more; a reading that happens twice in an overlap gives the first time.
    ///
    /// - Parameters:
    ///   - wall: The clock reading.
    ///   - zone: The zone whose clocks read it.
    /// - Returns: The instant.
    static func firstInstant(reading wall: Date, in zone: TimeZone) -> Date {
        // The offsets a day either side: no zone changes twice in two days, and no gap lasts a day.
        let before = zone.secondsFromGMT(for: wall.addingTimeInterval(-86_400))
        let after = zone.secondsFromGMT(for: wall.addingTimeInterval(86_400))
        let readings = [before, after].map { offset in (offset, wall.addingTimeInterval(-TimeInterval(offset))) }
            .filter { offset, instant in zone.secondsFromGMT(for: instant) == offset }.map(\.1)
        if let first = readings.min() { return first }
        // A gap: the clocks read less than `wall` until they jump past it, at the change.
        let lastBefore = wall.addingTimeInterval(-TimeInterval(after))
        let latestAfter = wall.addingTimeInterval(-TimeInterval(before))
        if let change = zone.nextDaylightSavingTimeTransition(after: lastBefore), change <= latestAfter {
            return change
        }
        return latestAfter
    }

    private static let utc = TimeZone(identifier: "UTC")!

    /// The next `count` dates a trigger matches after `date`, as `unotify trigger next` prints them: the dates a
    /// repeating form of the trigger would fire at. A time-interval trigger is taken as added at `date`.
    public static func fireDates(for trigger: TriggerSpec, after date: Date, count: Int, calendar: Calendar) -> [Date] {
        let trigger: TriggerSpec =
            switch trigger {
            case .timeInterval(let interval, _): .timeInterval(interval, repeats: true)
            case .calendar(let components, _, let matching): .calendar(components, repeats: true, matching: matching)
            default: trigger
            }
        var dates: [Date] = []
        guard count > 0, var next = firstFireDate(for: trigger, addedAt: date, calendar: calendar) else { return [] }
        while dates.count < count {
            dates.append(next)
            guard let following = nextFireDate(after: next, now: next, for: trigger, calendar: calendar) else { break }
            next = following
        }
        return dates
    }
}
