import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import Synchronization

/// A clock on wall time whose zone the bench changes.
final class ZoneClock: NotificationClock {
    private let zone: Mutex<TimeZone>

    init(_ zone: TimeZone) { self.zone = Mutex(zone) }

    var now: Date { Date() }
    var timeZone: TimeZone { zone.withLock { $0 } }

    func setZone(_ newZone: TimeZone) { zone.withLock { $0 = newZone } }

    func sleep(until deadline: Date) async throws { try await SystemNotificationClock().sleep(until: deadline) }
}

/// The floating calendar requests of figures 4 and 5: repeating hour/minute triggers (no zone) over `apps` apps,
/// planned in `calendar`'s zone.
///
/// `spread` decides which app holds which components: `false` gives each components to one app (app = slot mod
/// apps), so the distinct (app, components) pairs are the `combinations.count` components; `true` gives every app
/// every components, so there are `apps × combinations.count` distinct pairs. The store keeps one plan per distinct
/// (app, components, matching).
struct CalendarWorkload: Sendable {
    let combinations: [CalendarComponents]
    let nextDates: [Date]
    let now: Date
    let apps: Int
    let spread: Bool

    init(combinations count: Int, apps: Int, spread: Bool, calendar: Calendar, now: Date = Date()) {
        self.now = now
        self.apps = apps
        self.spread = spread
        combinations = Workload.calendarCombinations(count, calendar: calendar, now: now)
        nextDates = combinations.map {
            TriggerPlanner.nextCalendarDate(after: now, matching: $0, policy: .apple, calendar: calendar) ?? now
        }
    }

    /// How many distinct (app, components) pairs `rows` requests use.
    func plans(rows: Int) -> Int {
        spread ? min(rows, apps * combinations.count) : min(rows, combinations.count)
    }

    func app(_ index: Int) -> String {
        let slot = index % combinations.count
        return "bench.cal\(spread ? (index / combinations.count) % apps : slot % apps)"
    }

    func request(_ index: Int) -> PendingRequest {
        let slot = index % combinations.count
        return PendingRequest(
            appID: app(index),
            spec: RequestSpec(
                identifier: "cal-\(index)", content: Workload.content(index),
                trigger: .calendar(combinations[slot], repeats: true, matching: .apple)),
            addedAt: now, nextFireDate: nextDates[slot])
    }
}

/// A zone other than `zone` whose offset differs by a non-whole number of hours, so every fire date moves.
func otherZone(than zone: TimeZone) -> TimeZone {
    let candidate = TimeZone(identifier: "Asia/Kolkata")!
    return candidate.identifier == zone.identifier ? TimeZone(identifier: "America/New_York")! : candidate
}

/// One re-planning, timed as a whole and replayed phase by phase.
struct ReplanMeasurement: Sendable {
    var rows: Int
    var plans: Int
    var from: String
    var to: String
    var total: Double
    var rssBefore: Int
    var peak: Int
    var correct: Int
    var moved: Int
    var checked: Int
    /// The re-plan replayed with the store call the scheduler makes, `replanFloatingPlans(dueAfter:nextFireDate:)`:
    /// its whole time, the time spent computing dates in its closure, and how many distinct triggers it asked about.
    var replay: Double
    var replayCompute: Double
    var distinctTriggers: Int
    var fetch: Double
    var compute: Double
    var update: Double
    var replayedPlans: Int
    var baseline: Double
    /// Issue 11's target for this size (seconds).
    var target: Double

    var phaseSum: Double { fetch + compute + update }
    var met: Bool { total < target }
    var verdict: String {
        met
            ? "target < \(Format.duration(target)) met"
            : "target < \(Format.duration(target)) MISSED by \(Format.duration(total - target))"
    }
}

/// `NotificationScheduler.timeZoneDidChange()` over a store of floating calendar requests, timed as a whole; then
/// replayed with the store call it makes (`replanFloatingPlans`, timing the date computations inside); then the
/// per-plan path of before issue 11 replayed phase by phase as a reference (fetch the plans with
/// `floatingPlans(dueAfter:)`, compute one `TriggerPlanner` date per plan, write them with `updateFloatingPlans`).
/// Baseline: `Calendar.nextDate` for as many dates as there are requests.
func measureReplan(
    rows: Int, storePath: String, workload: CalendarWorkload, zone: TimeZone, label: String, target seconds: Double
) async throws -> ReplanMeasurement {
    let target = otherZone(than: zone)
    let store = try SQLiteNotificationStore(path: storePath)
    let clock = ZoneClock(zone)
    let scheduler = NotificationScheduler(
        store: store, clock: clock, presenter: NullPresenter(), configuration: EngineConfiguration(pendingCap: nil))
    // Records `zone` as the zone of the plan (the store was filled in it): no re-planning yet.
    try await scheduler.timeZoneDidChange()

    progress(
        "\(label): re-planning \(Format.count(rows)) floating calendar triggers, \(zone.identifier) → \(target.identifier)"
    )
    clock.setZone(target)
    ProcFS.resetPeakRSS()
    let rssBefore = ProcFS.kibibytes("VmRSS", pid: getpid()) ?? 0
    let replanStart = Date()
    let (_, total) = try await timedAsync { try await scheduler.timeZoneDidChange() }
    let peak = ProcFS.kibibytes("VmHWM", pid: getpid()) ?? 0

    // Check the result on one app's requests: every fire date is the next match in the new zone, and moved.
    var targetCalendar = Calendar(identifier: .gregorian)
    targetCalendar.timeZone = target
    let sample = try await store.pendingRequests(appID: workload.app(0))
    var correct = 0
    var moved = 0
    for request in sample {
        guard case .calendar(let components, _, let matching) = request.spec.trigger else { continue }
        let expected = TriggerPlanner.nextCalendarDate(
            after: replanStart, matching: components, policy: matching, calendar: targetCalendar)
        if expected == request.nextFireDate { correct += 1 }
        let index = Int(request.identifier.dropFirst(4)) ?? 0
        if request.nextFireDate != workload.nextDates[index % workload.combinations.count] { moved += 1 }
    }

    // Replayed on the same store (back to the first zone) with the call the scheduler makes.
    progress("\(label): replaying replanFloatingPlans, then the per-plan path (fetch, compute, update)")
    var backCalendar = Calendar(identifier: .gregorian)
    backCalendar.timeZone = zone
    let replayCounts = Mutex((triggers: 0, compute: 0.0))
    let replanNow = Date()
    let (_, replay) = try await timedAsync {
        try await store.replanFloatingPlans(dueAfter: replanNow) { [backCalendar] trigger in
            let (next, seconds) = timed { () -> Date? in
                guard case .calendar(let components, _, let matching) = trigger else { return nil }
                return TriggerPlanner.nextCalendarDate(
                    after: replanNow, matching: components, policy: matching, calendar: backCalendar)
            }
            replayCounts.withLock { $0 = (triggers: $0.triggers + 1, compute: $0.compute + seconds) }
            return next
        }
    }
    let (distinctTriggers, replayCompute) = replayCounts.withLock { ($0.triggers, $0.compute) }
    // The per-plan path (as before issue 11, but with a cached UPDATE statement), to the new zone again.
    let replayNow = Date()
    let (plans, fetch) = try await timedAsync { try await store.floatingPlans(dueAfter: replayNow) }
    let (updates, compute) = timed {
        plans.map { plan -> FloatingPlanUpdate in
            var next: Date?
            if case .calendar(let components, _, let matching) = plan.trigger {
                next = TriggerPlanner.nextCalendarDate(
                    after: replayNow, matching: components, policy: matching, calendar: targetCalendar)
            }
            return FloatingPlanUpdate(key: plan.key, nextFireDate: next)
        }
    }
    let (_, update) = try await timedAsync { try await store.updateFloatingPlans(updates) }

    // Baseline: Foundation's Calendar.nextDate for as many dates as requests, same components, zone and policy.
    progress("\(label): baseline: Calendar.nextDate × \(Format.count(rows))")
    let matches = workload.combinations.map(\.dateComponents)
    let (checksum, baseline) = timed { () -> Double in
        let now = Date()
        var sum = 0.0
        for index in 0..<rows {
            if let date = targetCalendar.nextDate(
                after: now, matching: matches[index % matches.count], matchingPolicy: .nextTime,
                repeatedTimePolicy: .first,
                direction: .forward)
            {
                sum += date.timeIntervalSince1970
            }
        }
        return sum
    }
    guard checksum > 0 else { throw BenchError("Calendar.nextDate found no date") }
    return ReplanMeasurement(
        rows: rows, plans: workload.plans(rows: rows), from: zone.identifier, to: target.identifier, total: total,
        rssBefore: rssBefore, peak: peak, correct: correct, moved: moved, checked: sample.count, replay: replay,
        replayCompute: replayCompute, distinctTriggers: distinctTriggers, fetch: fetch, compute: compute,
        update: update, replayedPlans: plans.count, baseline: baseline, target: seconds)
}

/// Figure 5 (and 5b): the measurements, printed.
func figureReplan(
    _ main: ReplanMeasurement, mainFill: StoreFiller.Report, spread: (ReplanMeasurement, StoreFiller.Report)?
)
    -> [Figure]
{
    say(
        "5. re-planning after a zone change, in-process NotificationScheduler over SQLiteNotificationStore (file in /tmp), "
            + "clock with a settable zone")
    var figures: [Figure] = []
    for (number, measurement, fill, layout) in [("5", main, mainFill, "each h:m in one app")]
        + (spread.map { [("5b", $0.0, $0.1, "every app has every h:m")] } ?? [])
    {
        let m = measurement
        say(
            "   \(number): \(Format.count(m.rows)) requests, \(m.plans) distinct (app, components) plans (\(layout)), "
                + "\(m.from) → \(m.to)")
        say("      store: \(fill.summary)")
        say(
            "      timeZoneDidChange(): \(Format.duration(m.total)) — \(m.verdict); RSS \(Format.mebibytes(kib: m.rssBefore)) "
                + "before, peak \(Format.mebibytes(kib: m.peak)) during")
        say(
            "      checked one app: \(m.correct)/\(m.checked) fire dates are the next match in \(m.to), \(m.moved)/\(m.checked) moved"
        )
        say(
            "      replayed (\(m.to) → \(m.from)) with replanFloatingPlans(dueAfter:nextFireDate:): "
                + "\(Format.duration(m.replay)), of which \(Format.duration(m.replayCompute)) computing "
                + "\(Format.count(m.distinctTriggers)) dates (one per distinct trigger)")
        say(
            "      reference, the per-plan path before issue 11 (\(m.from) → \(m.to)): fetch floatingPlans(dueAfter:) "
                + "\(Format.duration(m.fetch)) (\(Format.count(m.replayedPlans)) plans), compute \(Format.duration(m.compute)) "
                + "(one TriggerPlanner/Calendar.nextDate per plan), update updateFloatingPlans \(Format.duration(m.update)); "
                + "sum \(Format.duration(m.phaseSum))")
        say(
            "      baseline Calendar.nextDate × \(Format.count(m.rows)): \(Format.duration(m.baseline)) "
                + "(\(Format.number(Double(m.rows) / m.baseline)) dates/s)")
        figures.append(
            Figure(
                number: number,
                measure:
                    "re-plan after a zone change, \(Format.size(m.rows)) floating calendar triggers, \(Format.count(m.plans)) "
                    + "(app, h:m) plans, NotificationScheduler.timeZoneDidChange()",
                result: "\(Format.duration(m.total)) (\(m.verdict)); \(Format.count(m.distinctTriggers)) dates computed; "
                    + "per-plan path (before issue 11) \(Format.duration(m.phaseSum))",
                baseline: "Calendar.nextDate × \(Format.size(m.rows)): \(Format.duration(m.baseline))",
                ratio: Format.ratio(m.total, m.baseline)))
    }
    return figures
}
