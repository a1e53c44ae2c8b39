import Foundation
import NotificationEngine
import NotificationModel
import Testing

/// A zone's offset change: where it happens and the offsets on either side (seconds east of UTC).
struct OffsetTransition: Sendable {
    let instant: Date
    let before: Int
    let after: Int

    var isGap: Bool { after > before }
}

/// A zone whose clocks change in the two years after ``DaylightSavingSweepTests/reference``, with those changes.
struct ZoneTransitions: Sendable, CustomTestStringConvertible {
    let zone: String
    let transitions: [OffsetTransition]

    var testDescription: String { zone }

    /// Every known zone with a transition in the window, found with `TimeZone` alone (no `Calendar`).
    static let all: [ZoneTransitions] = TimeZone.knownTimeZoneIdentifiers.sorted().compactMap { identifier in
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        var transitions: [OffsetTransition] = []
        var cursor = DaylightSavingSweepTests.reference
        let end = DaylightSavingSweepTests.end
        while let instant = zone.nextDaylightSavingTimeTransition(after: cursor), instant < end {
            let before = zone.secondsFromGMT(for: instant.addingTimeInterval(-1))
            let after = zone.secondsFromGMT(for: instant)
            if before != after { transitions.append(OffsetTransition(instant: instant, before: before, after: after)) }
            cursor = instant
        }
        return transitions.isEmpty ? nil : ZoneTransitions(zone: identifier, transitions: transitions)
    }
}

/// Daily calendar triggers at wall times inside every daylight-saving gap and overlap of every zone, in the two
/// years after a fixed date, against a brute-force answer that reads only the zone's offsets.
@Suite("Daylight-saving transitions in every zone")
struct DaylightSavingSweepTests {
    /// 2026-01-01T00:00:00Z: fixed, so the cases do not change with the day the tests run.
    static let reference = Date(timeIntervalSince1970: 1_767_225_600)
    static let end = reference.addingTimeInterval(2 * 365 * 86_400)

    @Test("the window holds gaps and overlaps of every kind the sweep is meant to cover")
    func coverage() {
        let transitions = ZoneTransitions.all.flatMap(\.transitions)
        let lengths = Set(transitions.map { $0.after - $0.before })
        // Ordinary hour changes, Lord Howe's half hour and Troll's two hours, both ways.
        #expect(lengths.isSuperset(of: [3600, -3600, 1800, -1800, 7200, -7200]), "\(lengths.sorted())")
        #expect(ZoneTransitions.all.contains { $0.zone == "Australia/Lord_Howe" })
        #expect(transitions.allSatisfy { Int($0.instant.timeIntervalSince1970) % 60 == 0 })
    }

    @Test(
        "a daily trigger fires every day: once at the end of a gap its time falls in, once in an overlap",
        arguments: ZoneTransitions.all)
    func dailyAcrossTransitions(zone: ZoneTransitions) throws {
        let timeZone = try #require(TimeZone(identifier: zone.zone))
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = try #require(TimeZone(identifier: "UTC"))
        for transition in zone.transitions {
            // Wall-clock readings as seconds since 1970-01-01T00:00 local: the first one skipped or shown twice.
            let change = Int(transition.instant.timeIntervalSince1970)
            let skippedOrRepeatedFrom = change + min(transition.before, transition.after)
            let length = abs(transition.after - transition.before)
            let wallTimes: [(String, Int)] = [
                ("first minute of the \(transition.isGap ? "gap" : "overlap")", skippedOrRepeatedFrom),
                ("middle of it", skippedOrRepeatedFrom + length / 2 / 60 * 60),
                ("last minute of it", skippedOrRepeatedFrom + length - 60),
                ("the minute before it", skippedOrRepeatedFrom - 60),
                ("the minute after it", skippedOrRepeatedFrom + length),
                ("an hour before it", skippedOrRepeatedFrom - 3600),
            ]
            for (label, wall) in wallTimes {
                let minuteOfDay = (wall % 86_400 + 86_400) % 86_400 / 60
                let start = transition.instant.addingTimeInterval(-2 * 86_400)
                let expected = try Self.expectedDailyFires(
                    minuteOfDay: minuteOfDay, after: start, days: 5, zone: timeZone, near: transition)
                // Fixed to the zone with either policy, and floating in a calendar of that zone.
                for (policy, fixed) in [(CalendarMatching.apple, true), (.strict, true), (.apple, false)] {
                    var components = CalendarComponents()
                    components.hour = minuteOfDay / 60
                    components.minute = minuteOfDay % 60
                    components.timeZoneIdentifier = fixed ? zone.zone : nil
                    var calendar = utc
                    if !fixed { calendar.timeZone = timeZone }
                    let dates = TriggerPlanner.fireDates(
                        for: .calendar(components, repeats: true, matching: policy), after: start,
                        count: expected.count, calendar: calendar)
                    #expect(
                        dates == expected,
                        """
                        \(zone.zone), daily \(Self.clock(minuteOfDay)) (\(label)), \(policy), \(fixed ? "fixed" : "floating"), \
                        clocks change at \(Self.iso(transition.instant)) from \(Self.offset(transition.before)) to \
                        \(Self.offset(transition.after)): expected \(expected.map(Self.iso)), got \(dates.map(Self.iso))
                        """)
                }
            }
        }
    }

    /// The instants after `start` a daily trigger at `minuteOfDay` should fire at on the `days` local days from the
    /// one `start` falls on: on each, the first instant at which the zone's wall clock reads that time or later.
    ///
    /// That one rule gives the expected answer in all three cases: the moment the clock shows the time; for a time
    /// skipped by a gap, the end of the gap (the clock jumps past it); for a time shown twice in an overlap, the
    /// first showing. Found by scanning minute by minute with `TimeZone.secondsFromGMT(for:)`, from an instant whose
    /// wall clock reads earlier.
    static func expectedDailyFires(
        minuteOfDay: Int, after start: Date, days: Int, zone: TimeZone, near transition: OffsetTransition
    ) throws -> [Date] {
        func wall(_ seconds: Int) -> Int {
            seconds + zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        let startSeconds = Int(start.timeIntervalSince1970)
        let firstDay = Int((Double(wall(startSeconds)) / 86_400).rounded(.down))
        var fires: [Date] = []
        for day in firstDay..<(firstDay + days) {
            let target = day * 86_400 + minuteOfDay * 60
            var instant = target - max(transition.before, transition.after) - 60
            try #require(wall(instant) < target, "the scan for \(zone.identifier) must start before the wall time")
            while wall(instant) < target { instant += 60 }
            if instant > startSeconds { fires.append(Date(timeIntervalSince1970: TimeInterval(instant))) }
        }
        return fires
    }

    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    /// `02:15`.
    static func clock(_ minuteOfDay: Int) -> String {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(twoDigits(minuteOfDay / 60)):\(twoDigits(minuteOfDay % 60))"
    }

    /// `+10:30`, `-03:00`.
    static func offset(_ seconds: Int) -> String {
        (seconds < 0 ? "-" : "+") + clock(abs(seconds) / 60)
    }
}
