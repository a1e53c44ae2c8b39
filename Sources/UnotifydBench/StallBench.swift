import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import Synchronization

/// Records when each notification was presented, against its due instant.
final class LatenessRecorder: NotificationPresenter {
    let name = "bench"
    private let lateness = Mutex<[Double]>([])

    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        let late = Date().timeIntervalSince(notification.dueDate)
        lateness.withLock { $0.append(late) }
    }

    func withdraw(appID: String, identifiers: [String]) async {}
    func badgeDidChange(appID: String, count: Int) async {}

    var all: [Double] { lateness.withLock { $0 } }
    var count: Int { lateness.withLock { $0.count } }
}

/// Figure 6: how late unrelated notifications are while the store is kept busy by re-plans (zone changes over
/// `plans` floating plans) and a bulk import (`add(contentsOf:)` in batches), against a bare `sleep(until:)` for the
/// same due offsets in the same run. Issue 11, item 7: within 5 ms of the due instant. The import's batches are built
/// on ``BulkExecutor/shared``, as a real import's parsing would be.
struct StallMeasurement: Sendable {
    var plans: Int
    var floatingRows: Int
    var scheduled: Int
    var delivered: Int
    var replans: Int
    var replanSeconds: [Double]
    var imported: Int
    var importBatch: Int
    var importSeconds: [Double]
    var engine: Percentiles
    var baseline: Percentiles
    var span: Double
}

func measureStalls(options: Options, folder: TemporaryFolder) async throws -> StallMeasurement {
    let storePath = folder.file("stall/store.sqlite")
    try FileManager.default.createDirectory(
        atPath: URL(fileURLWithPath: storePath).deletingLastPathComponent().path, withIntermediateDirectories: true)
    let zone = SystemNotificationClock().timeZone
    let workload = CalendarWorkload(
        combinations: options.combinations, apps: options.spreadApps, spread: true,
        calendar: SystemNotificationClock().calendar)
    let rows = options.spreadApps * options.combinations
    let store = try SQLiteNotificationStore(path: storePath)
    progress("6: filling \(Format.count(rows)) floating calendar requests (\(Format.count(workload.plans(rows: rows))) plans)")
    for start in stride(from: 0, to: rows, by: 10_000) {
        let batch = (start..<min(start + 10_000, rows)).map(workload.request)
        _ = try await store.insertPending(batch: batch, cap: nil, at: Date())
    }

    // Due offsets: uniformly random over the span, after a lead that lets the adds finish.
    var state: UInt64 = 11  // a fixed LCG: the same offsets every run
    let span = options.stallSpan
    let offsets = (0..<options.stallCount).map { _ -> Double in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return span * Double(state >> 11) / Double(UInt64(1) << 53)
    }.sorted()
    progress("6: baseline: bare SystemNotificationClock.sleep(until:) for \(offsets.count) due offsets")
    let baseline = try await bareSleepLateness(offsets: offsets)

    let clock = ZoneClock(zone)
    let presenter = LatenessRecorder()
    var configuration = EngineConfiguration(pendingCap: nil)
    if let ahead = options.stallClaimAhead { configuration.claimAhead = ahead }
    configuration.loopRealtimePriority = options.stallLoopPriority
    if let slice = options.stallLoopSlice { configuration.loopTimeSlice = slice > 0 ? slice / 1000 : nil }
    let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter, configuration: configuration)
    try await scheduler.setAuthorization(appID: "bench.due", status: .authorized, options: [.alert, .sound, .badge])
    try await scheduler.setAuthorization(appID: "bench.import", status: .authorized, options: [.alert])
    try await scheduler.timeZoneDidChange()  // records the zone the store was filled in
    let loop = Task { await scheduler.run() }

    let lead = 1.0
    let base = Date().addingTimeInterval(lead)
    for (index, offset) in offsets.enumerated() {
        let spec = RequestSpec(
            identifier: "due-\(index)", content: Workload.content(index),
            trigger: .timeInterval(max(0.001, base.addingTimeInterval(offset).timeIntervalSinceNow), repeats: false))
        try await scheduler.add(spec, appID: "bench.due")
    }
    let end = base.addingTimeInterval(span)
    progress(
        "6: \(offsets.count) requests due over \(Format.duration(span)) while zone changes re-plan "
            + "\(Format.count(workload.plans(rows: rows))) plans and an import adds batches of \(Format.count(options.stallImportBatch))")

    // Interference until the last request is due: a zone change (and its re-plan) every `stallReplanEvery` seconds,
    // and an import that adds batch after batch.
    let other = otherZone(than: zone)
    let replanning = Task { () -> [Double] in
        var seconds: [Double] = []
        var flip = false
        while Date() < end, options.stallLoads.contains("replan") {
            flip.toggle()
            clock.setZone(flip ? other : zone)
            let (_, elapsed) = try await timedAsync { try await scheduler.timeZoneDidChange() }
            seconds.append(elapsed)
            try await Task.sleep(for: .seconds(max(0, options.stallReplanEvery - elapsed)))
        }
        return seconds
    }
    // The import runs as a real one does: building its batches is bulk CPU work too, so it runs on the engine's
    // low-priority bulk threads (BulkExecutor), as add(contentsOf:)'s own checks and encoding do, not on the
    // concurrency pool the delivery loop resumes on.
    let importing = Task(executorPreference: BulkExecutor.shared) { () -> [Double] in
        var seconds: [Double] = []
        var next = 0
        while Date() < end, options.stallLoads.contains("import") {
            let batch = (next..<next + options.stallImportBatch).map { index in
                BatchRequest(
                    appID: "bench.import",
                    spec: RequestSpec(
                        identifier: "import-\(index)", content: Workload.content(index),
                        trigger: .timeInterval(86_400 + Double(index % 86_400), repeats: false)))
            }
            next += batch.count
            let (_, elapsed) = try await timedAsync { try await scheduler.add(contentsOf: batch) }
            seconds.append(elapsed)
        }
        return seconds
    }
    let replans = try await replanning.value
    let imports = try await importing.value
    let deadline = Date().addingTimeInterval(10)
    while presenter.count < offsets.count, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
    loop.cancel()
    await loop.value
    try? store.close()
    try? FileManager.default.removeItem(atPath: storePath)
    return StallMeasurement(
        plans: workload.plans(rows: rows), floatingRows: rows, scheduled: offsets.count, delivered: presenter.count,
        replans: replans.count, replanSeconds: replans, imported: imports.count * options.stallImportBatch,
        importBatch: options.stallImportBatch, importSeconds: imports, engine: Percentiles(presenter.all),
        baseline: Percentiles(baseline), span: span)
}

func figureStalls(_ m: StallMeasurement) -> [Figure] {
    say("6. no stalls: time-interval requests due while re-plans and an import keep the store busy (in-process engine)")
    say(
        "   \(m.scheduled) requests due at random instants over \(Format.duration(m.span)); delivered \(m.delivered); "
            + "store: \(Format.count(m.floatingRows)) floating requests in \(Format.count(m.plans)) plans")
    say(
        "   meanwhile: \(m.replans) re-plans (timeZoneDidChange, p50 \(Format.duration(Percentiles(m.replanSeconds).p50)), "
            + "max \(Format.duration(Percentiles(m.replanSeconds).max))) and \(Format.count(m.imported)) requests imported "
            + "in batches of \(Format.count(m.importBatch)) (add(contentsOf:) p50 \(Format.duration(Percentiles(m.importSeconds).p50)), "
            + "max \(Format.duration(Percentiles(m.importSeconds).max)))")
    for (label, sample) in [("engine  ", m.engine), ("baseline", m.baseline)] {
        say(
            "   \(label) lateness: p50 \(Format.duration(sample.p50)), p99 \(Format.duration(sample.p99)), "
                + "max \(Format.duration(sample.max)) (n = \(sample.count))")
    }
    let met = m.delivered == m.scheduled && m.engine.max <= 0.005
    return [
        Figure(
            number: "6",
            measure:
                "lateness while \(m.replans) re-plans of \(Format.count(m.plans)) plans and an import of "
                + "\(Format.count(m.imported)) run, max (target ≤ 5 ms: \(met ? "met" : "MISSED"))",
            result: "p99 \(Format.duration(m.engine.p99)), max \(Format.duration(m.engine.max))",
            baseline: "bare sleep p99 \(Format.duration(m.baseline.p99)), max \(Format.duration(m.baseline.max))",
            ratio: Format.ratio(m.engine.p99, m.baseline.p99) + " (p99)")
    ]
}
