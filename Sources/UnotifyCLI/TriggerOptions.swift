import ArgumentParser
import Foundation
import NotificationModel

/// The trigger options `add` and `trigger next` share.
struct TriggerOptions: ParsableArguments {
    @Option(name: .customLong("in"), help: "Fire after a duration: 90, 90s, 5m, 2h, 1d.")
    var interval: String?

    @Option(help: "Fire at an instant (2026-03-08T11:00:00Z) or a local wall time (2026-03-08T11:00).")
    var at: String?

    @Option(help: "Fire when the date matches DateComponents: hour=7,minute=0 or weekday=1,hour=8.")
    var calendar: String?

    @Flag(help: "Fire again: every interval (at least 60 s) or at every matching date.")
    var repeats = false

    @Option(name: .customLong("time-zone"), help: "An IANA zone that fixes calendar components (default: floating).")
    var timeZone: String?

    @Flag(help: "Calendar matching that skips months without the day (default: Apple's behaviour).")
    var strict = false

    @Option(
        parsing: .unconditional, help: "Fire on entering or leaving a circle: <latitude>,<longitude>,<radius in metres>.")
    var region: String?

    @Option(name: .customLong("region-id"), help: "The region's identifier (default: region).")
    var regionID: String?

    @Flag(name: .customLong("on-entry"), help: "With --region: notify on entry (without --on-exit: on entry only).")
    var onEntry = false

    @Flag(name: .customLong("on-exit"), help: "With --region: notify on exit (without --on-entry: on exit only).")
    var onExit = false

    /// The options' values.
    var fields: TriggerFields {
        TriggerFields(
            interval: interval, at: at, calendar: calendar, repeats: repeats, timeZone: timeZone, strict: strict,
            region: region, regionID: regionID, onEntry: onEntry, onExit: onExit)
    }

    /// The trigger the options describe; `nil` when none was given (deliver at once).
    func trigger() throws -> TriggerSpec? { try fields.trigger() }

    /// Parses `--region 48.8584,2.2945,150`; with neither flag the region notifies on entry and exit, as
    /// `CLCircularRegion` does by default.
    static func region(_ text: String, identifier: String?, onEntry: Bool, onExit: Bool) throws -> RegionSpec {
        let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 3, let latitude = numbers[0], let longitude = numbers[1], let radius = numbers[2] else {
            throw ValidationError("cannot read the region '\(text)' (use <latitude>,<longitude>,<radius in metres>)")
        }
        guard abs(latitude) <= 90, abs(longitude) <= 180, radius > 0, radius.isFinite else {
            throw ValidationError("the region '\(text)' needs a latitude within ±90, a longitude within ±180 and a radius above 0")
        }
        let both = !onEntry && !onExit
        return RegionSpec(
            identifier: identifier ?? "region", latitude: latitude, longitude: longitude, radius: radius,
            notifyOnEntry: both || onEntry, notifyOnExit: both || onExit)
    }

    nonisolated(unsafe) static let componentNames: [String: WritableKeyPath<CalendarComponents, Int?>] = [  // immutable
        "era": \.era, "year": \.year, "month": \.month, "day": \.day, "hour": \.hour, "minute": \.minute,
        "second": \.second, "nanosecond": \.nanosecond, "weekday": \.weekday, "weekdayOrdinal": \.weekdayOrdinal,
        "quarter": \.quarter, "weekOfMonth": \.weekOfMonth, "weekOfYear": \.weekOfYear,
        "yearForWeekOfYear": \.yearForWeekOfYear,
    ]

    /// Parses `hour=7,minute=0`.
    static func components(list: String) throws -> CalendarComponents {
        var components = CalendarComponents()
        for pair in list.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let keyPath = componentNames[parts[0]] else {
                throw ValidationError(
                    "cannot read '\(pair)' in --calendar: use name=value with a DateComponents name ("
                        + componentNames.keys.sorted().joined(separator: ", ") + ")")
            }
            guard let value = Int(parts[1]) else { throw ValidationError("'\(parts[1])' in --calendar is not a whole number") }
            try checkRange(parts[0], value)
            components[keyPath: keyPath] = value
        }
        guard !components.isEmpty else { throw ValidationError("--calendar needs at least one name=value pair") }
        return components
    }

    /// The values a Gregorian calendar's components can take (`Calendar.maximumRange(of:)`), for the components
    /// with fixed limits: era, year and yearForWeekOfYear have none worth checking.
    static let componentRanges: [String: ClosedRange<Int>] = {
        let calendar = Calendar(identifier: .gregorian)
        let units: [String: Calendar.Component] = [
            "month": .month, "day": .day, "hour": .hour, "minute": .minute, "second": .second,
            "nanosecond": .nanosecond, "weekday": .weekday, "weekdayOrdinal": .weekdayOrdinal, "quarter": .quarter,
            "weekOfMonth": .weekOfMonth, "weekOfYear": .weekOfYear,
        ]
        return units.compactMapValues { unit in
            calendar.maximumRange(of: unit).map { $0.lowerBound...($0.upperBound - 1) }
        }
    }()

    /// Rejects a component no date can have (`hour=25`), which Apple's trigger would accept and never fire.
    ///
    /// - Throws: `ValidationError`: "hour=25 is out of range: hour takes 0...23".
    static func checkRange(_ name: String, _ value: Int) throws {
        guard let range = componentRanges[name], !range.contains(value) else { return }
        throw ValidationError("\(name)=\(value) is out of range: \(name) takes \(range.lowerBound)...\(range.upperBound)")
    }

    /// Parses `--at`: an instant with `Z` or an offset is fixed; a wall time without one floats unless a zone is
    /// given.
    static func components(at text: String, zone: String?) throws -> CalendarComponents {
        if let instant = try? Date(text, strategy: .iso8601) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
            var components = CalendarComponents(
                calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant))
            components.timeZoneIdentifier = calendar.timeZone.identifier
            return components
        }
        let fields = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0) }
        guard fields.count == 5 || fields.count == 6, fields.allSatisfy({ $0 != nil }) else {
            throw ValidationError("cannot read the date '\(text)' (use 2026-03-08T11:00:00Z or 2026-03-08T11:00)")
        }
        for (name, value) in zip(["month", "day", "hour", "minute", "second"], fields.dropFirst().compactMap { $0 }) {
            try checkRange(name, value)
        }
        var components = CalendarComponents()
        (components.year, components.month, components.day) = (fields[0], fields[1], fields[2])
        (components.hour, components.minute, components.second) = (fields[3], fields[4], fields.count == 6 ? fields[5] : 0)
        components.timeZoneIdentifier = zone
        return components
    }
}

/// When a request fires, as `unotify add`'s options (``TriggerOptions``) and `unotify import`'s JSON lines give it.
struct TriggerFields: Sendable {
    var interval: String?
    var at: String?
    var calendar: String?
    var repeats = false
    var timeZone: String?
    var strict = false
    var region: String?
    var regionID: String?
    var onEntry = false
    var onExit = false

    /// The trigger the fields describe; `nil` when none was given (deliver at once).
    func trigger() throws -> TriggerSpec? {
        let given = [interval, at, calendar, region].compactMap { $0 }
        guard given.count <= 1 else { throw ValidationError("give only one of --in, --at, --calendar and --region") }
        if region == nil, onEntry || onExit || regionID != nil {
            throw ValidationError("--on-entry, --on-exit and --region-id need --region")
        }
        if let zone = timeZone, TimeZone(identifier: zone) == nil {
            throw ValidationError("unknown time zone '\(zone)' (use an IANA name such as Europe/Paris)")
        }
        let matching: CalendarMatching = strict ? .strict : .apple
        if let interval {
            guard let seconds = parseDuration(interval) else {
                throw ValidationError(
                    "cannot read the duration '\(interval)': a number of seconds from 0 up to 100 years, with an optional "
                        + "unit (examples: 90, 90s, 5m, 2h, 1d)")
            }
            return .timeInterval(seconds, repeats: repeats)
        }
        if let at {
            return .calendar(try TriggerOptions.components(at: at, zone: timeZone), repeats: repeats, matching: matching)
        }
        if let calendar {
            var components = try TriggerOptions.components(list: calendar)
            components.timeZoneIdentifier = timeZone
            return .calendar(components, repeats: repeats, matching: matching)
        }
        if let region {
            return .location(try TriggerOptions.region(region, identifier: regionID, onEntry: onEntry, onExit: onExit), repeats: repeats)
        }
        if repeats { throw ValidationError("--repeats needs --in, --at, --calendar or --region") }
        return nil
    }
}
