import Foundation
import NotificationEngine
import NotificationModel
import Testing

/// Parses `2026-03-08T07:00:00Z`.
func instant(_ text: String) -> Date {
    try! Date(text, strategy: .iso8601)
}

func calendar(_ zone: String) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    return calendar
}

func components(_ build: (inout CalendarComponents) -> Void) -> CalendarComponents {
    var components = CalendarComponents()
    build(&components)
    return components
}

@Suite("Trigger planner")
struct TriggerPlannerTests {
    @Test(
        "time-interval validation follows Apple's traps",
        arguments: [
            (0.0, false, false), (-5, false, false), (0.5, false, true), (59, true, false), (60, true, true),
            (.infinity, false, false), (.nan, false, false),
        ] as [(Double, Bool, Bool)])
    func timeIntervalValidation(interval: Double, repeats: Bool, valid: Bool) {
        let result = Result { try TriggerPlanner.validate(.timeInterval(interval, repeats: repeats)) }
        switch result {
        case .success: #expect(valid)
        case .failure(let error):
            #expect(!valid)
            #expect((error as? EngineError)?.code == .invalidTrigger)
        }
    }

    @Test("empty calendar components and unknown zones are rejected")
    func calendarValidation() {
        #expect(throws: EngineError.self) {
            try TriggerPlanner.validate(.calendar(CalendarComponents(), repeats: false, matching: .apple))
        }
        let badZone = components { $0.hour = 7; $0.timeZoneIdentifier = "Mars/Olympus" }
        #expect(throws: EngineError.self) { try TriggerPlanner.validate(.calendar(badZone, repeats: false, matching: .apple)) }
    }

    @Test("a time-interval trigger fires its interval after it was added")
    func timeIntervalFirst() {
        let added = instant("2026-01-05T09:00:00Z")
        let first = TriggerPlanner.firstFireDate(for: .timeInterval(90, repeats: false), addedAt: added, calendar: calendar("UTC"))
        #expect(first == instant("2026-01-05T09:01:30Z"))
        #expect(TriggerPlanner.firstFireDate(for: nil, addedAt: added, calendar: calendar("UTC")) == added)
    }

    @Test("a repeating interval keeps its grid and skips whole missed periods")
    func repeatingIntervalAfterMiss() {
        let due = instant("2026-01-05T09:00:00Z")
        let trigger = TriggerSpec.timeInterval(60, repeats: true)
        let utc = calendar("UTC")
        #expect(TriggerPlanner.nextFireDate(after: due, now: due, for: trigger, calendar: utc) == instant("2026-01-05T09:01:00Z"))
        // Handled 10 min 30 s late: the next fire is the next grid point after now, not one per missed minute.
        let late = instant("2026-01-05T09:10:30Z")
        #expect(TriggerPlanner.nextFireDate(after: due, now: late, for: trigger, calendar: utc) == instant("2026-01-05T09:11:00Z"))
        #expect(TriggerPlanner.nextFireDate(after: due, now: due, for: .timeInterval(60, repeats: false), calendar: utc) == nil)
    }

    @Test(
        "calendar matching follows Foundation's nextDate",
        arguments: [
            // weekday 1 is Sunday: 2026-01-05 is a Monday, the next Sunday 8:00 is the 11th.
            ("weekday=1,hour=8", "2026-01-05T09:00:00Z", "UTC", ["2026-01-11T08:00:00Z", "2026-01-18T08:00:00Z"]),
            ("hour=7,minute=0", "2026-01-05T09:00:00Z", "UTC", ["2026-01-06T07:00:00Z", "2026-01-07T07:00:00Z"]),
            ("hour=7,minute=0", "2026-01-05T06:59:59Z", "UTC", ["2026-01-05T07:00:00Z", "2026-01-06T07:00:00Z"]),
            // February 29th in a common year rolls over to March 1st, the same quirk (strict matching waits for 2028).
            ("month=2,day=29,hour=12", "2026-01-05T09:00:00Z", "UTC", ["2026-03-01T00:00:00Z"]),
            // A daily 2:30 inside New York's spring-forward gap fires at 3:00 that day; no day is skipped.
            (
                "hour=2,minute=30", "2026-03-07T12:00:00Z", "America/New_York",
                ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"]
            ),
            // Lord Howe's gap is half an hour (2:00 to 2:30 on 2026-10-04): a daily 2:15 fires at 2:30 that day.
            (
                "hour=2,minute=15", "2026-10-02T00:00:00Z", "Australia/Lord_Howe",
                ["2026-10-02T15:45:00Z", "2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"]
            ),
            // A daily 1:30 inside the fall-back overlap fires once, at the first 1:30 (EDT).
            (
                "hour=1,minute=30", "2026-10-31T12:00:00Z", "America/New_York",
                ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]
            ),
            // Apple's day-31 quirk (rdar 32865247): June has no 31st, so the trigger fires on July 1st.
            (
                "day=31,hour=9", "2026-05-31T14:00:00Z", "America/New_York",
                ["2026-07-01T04:00:00Z", "2026-07-31T13:00:00Z", "2026-08-31T13:00:00Z", "2026-10-01T04:00:00Z"]
            ),
        ] as [(String, String, String, [String])])
    func calendarDates(list: String, after: String, zone: String, expected: [String]) throws {
        let trigger = TriggerSpec.calendar(try parse(list), repeats: true, matching: .apple)
        let dates = TriggerPlanner.fireDates(for: trigger, after: instant(after), count: expected.count, calendar: calendar(zone))
        #expect(dates == expected.map(instant))
    }

    @Test("strict matching skips months without the day")
    func strictDay31() throws {
        let trigger = TriggerSpec.calendar(try parse("day=31,hour=9"), repeats: true, matching: .strict)
        let dates = TriggerPlanner.fireDates(
            for: trigger, after: instant("2026-05-31T14:00:00Z"), count: 4, calendar: calendar("America/New_York"))
        #expect(
            dates == ["2026-07-31T13:00:00Z", "2026-08-31T13:00:00Z", "2026-10-31T13:00:00Z", "2026-12-31T14:00:00Z"].map(instant))
    }

    @Test("strict matching waits for a leap year's February 29th")
    func strictLeapDay() throws {
        let trigger = TriggerSpec.calendar(try parse("month=2,day=29,hour=12"), repeats: true, matching: .strict)
        let dates = TriggerPlanner.fireDates(for: trigger, after: instant("2026-01-05T09:00:00Z"), count: 2, calendar: calendar("UTC"))
        #expect(dates == ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"].map(instant))
    }

    @Test("components with a zone are a fixed instant; without one they follow the calendar's zone")
    func fixedAndFloating() throws {
        var fixed = try parse("hour=9,minute=0")
        fixed.timeZoneIdentifier = "Asia/Tokyo"
        let floating = try parse("hour=9,minute=0")
        let after = instant("2026-01-05T12:00:00Z")
        for zone in ["UTC", "America/Los_Angeles", "Europe/Paris"] {
            #expect(
                TriggerPlanner.nextCalendarDate(after: after, matching: fixed, policy: .apple, calendar: calendar(zone))
                    == instant("2026-01-06T00:00:00Z"))
        }
        #expect(
            TriggerPlanner.nextCalendarDate(after: after, matching: floating, policy: .apple, calendar: calendar("Europe/Paris"))
                == instant("2026-01-06T08:00:00Z"))
        #expect(
            TriggerPlanner.nextCalendarDate(after: after, matching: floating, policy: .apple, calendar: calendar("America/Los_Angeles"))
                == instant("2026-01-05T17:00:00Z"))
        #expect(!fixed.isFloating && floating.isFloating)
    }

    @Test("a date in the past or impossible components have no fire date")
    func noDate() throws {
        let after = instant("2026-01-05T12:00:00Z")
        #expect(
            TriggerPlanner.firstFireDate(
                for: .calendar(try parse("year=2020,month=1,day=1"), repeats: false, matching: .apple), addedAt: after,
                calendar: calendar("UTC")) == nil)
        #expect(
            TriggerPlanner.firstFireDate(
                for: .calendar(try parse("hour=-1"), repeats: false, matching: .apple), addedAt: after, calendar: calendar("UTC"))
                == nil)
        // A repeating trigger with a full date fires once.
        let once = TriggerSpec.calendar(try parse("year=2026,month=6,day=1,hour=0"), repeats: true, matching: .apple)
        #expect(TriggerPlanner.fireDates(for: once, after: after, count: 3, calendar: calendar("UTC")) == [instant("2026-06-01T00:00:00Z")])
    }

    /// `hour=7,minute=0` as the CLI writes components.
    private func parse(_ list: String) throws -> CalendarComponents {
        var result = CalendarComponents()
        for pair in list.split(separator: ",") {
            let parts = pair.split(separator: "=")
            let value = try #require(Int(parts[1]))
            switch parts[0] {
            case "year": result.year = value
            case "month": result.month = value
            case "day": result.day = value
            case "hour": result.hour = value
            case "minute": result.minute = value
            case "weekday": result.weekday = value
            default: Issue.record("unknown component \(parts[0])")
            }
        }
        return result
    }
}
