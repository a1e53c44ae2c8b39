import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// Figure 1: how late the running engine presents requests, against a bare `sleep(until:)` on the same clock.
struct DeliveryResult: Sendable {
    var pendingAtStart: Int
    var scheduled: Int
    var delivered: Int
    /// Requests whose due instant had already passed when `add` was called (they are still measured).
    var addedLate: Int
    var addSeconds: Double
    var engine: Percentiles
    /// Both baseline runs pooled.
    var baseline: Percentiles
    /// The baseline run before the engine's and the one after it.
    var baselineRuns: [Percentiles]
}

/// Figure 3: context switches over an idle period, with and without the engine's loop running.
struct IdleResult: Sendable {
    var pending: Int
    var seconds: Double
    var nextWake: Date?
    var engine: SwitchDelta
    var baselines: [SwitchDelta]
}

enum DeliveryIdleBench {
    static func delivery(path: String, options: BenchOptions) async throws -> DeliveryResult {
        // Due instants: uniformly random over the span.
        var generator = SplitMix64(seed: options.seed &+ 7)
        let count = options.deliveryCount
        let offsets = (0..<count).map { _ in Double.random(in: 0...options.deliverySpan, using: &generator) }.sorted()

        progress("delivery baseline (before): bare SystemNotificationClock.sleep(until:) for the same due offsets")
        let before = try await bareSleepLateness(offsets: offsets)

        let store = try SQLiteNotificationStore(path: path)
        let presenter = LatenessPresenter()
        let scheduler = NotificationScheduler.bench(store: store, presenter: presenter)
        try await scheduler.authorizeForBench(Workload.dueAppID)
        let pendingAtStart = try await store.pendingCount()

        let runTask = Task { await scheduler.run() }
        try await Task.sleep(for: .seconds(1))

        let base = Date().addingTimeInterval(options.deliveryLead)
        progress(
            "delivery: \(count) requests due over \(Format.duration(options.deliverySpan)) among "
                + "\(Format.count(pendingAtStart)) pending, engine loop running")
        var addedLate = 0
        let addStart = ContinuousClock.now
        for (index, offset) in offsets.enumerated() {
            var interval = base.addingTimeInterval(offset).timeIntervalSinceNow
            if interval < 0.001 {
                interval = 0.001
                addedLate += 1
            }
            let spec = Workload.spec(identifier: Workload.identifier(index, prefix: "due"), index: index, interval: interval)
            try await scheduler.add(spec, appID: Workload.dueAppID)
        }
        let addSeconds = (ContinuousClock.now - addStart).seconds

        let deadline = base.addingTimeInterval(options.deliverySpan + 30)
        while presenter.count < count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        runTask.cancel()
        await runTask.value
        let presented = presenter.all

        progress("delivery baseline (after): bare SystemNotificationClock.sleep(until:) for the same due offsets")
        let after = try await bareSleepLateness(offsets: offsets)
        return DeliveryResult(
            pendingAtStart: pendingAtStart, scheduled: count, delivered: presented.count, addedLate: addedLate,
            addSeconds: addSeconds, engine: Percentiles(presented.map(\.lateness)), baseline: Percentiles(before + after),
            baselineRuns: [Percentiles(before), Percentiles(after)])
    }

    static func idle(path: String, options: BenchOptions) async throws -> IdleResult {
        let store = try SQLiteNotificationStore(path: path)
        let scheduler = NotificationScheduler.bench(store: store)
        let pending = try await store.pendingCount()
        let nextWake = try await store.nextWakeDate()
        let seconds = options.idleSeconds

        func idlePeriod() async throws -> SwitchDelta {
            let before = SwitchSnapshot.take()
            try await Task.sleep(for: .seconds(seconds))
            return SwitchDelta(from: before, to: SwitchSnapshot.take())
        }

        let settle: Duration = options.quick ? .seconds(1) : .seconds(2)
        var baselines: [SwitchDelta] = []
        progress("idle baseline: \(Format.duration(seconds)) with no engine running")
        try await Task.sleep(for: settle)
        baselines.append(try await idlePeriod())

        progress("idle engine: \(Format.duration(seconds)) with run() active over \(Format.count(pending)) pending")
        let runTask = Task { await scheduler.run() }
        try await Task.sleep(for: settle)
        let engine = try await idlePeriod()
        runTask.cancel()
        await runTask.value

        if !options.quick {
            progress("idle baseline again: \(Format.duration(seconds)) with no engine running")
            try await Task.sleep(for: settle)
            baselines.append(try await idlePeriod())
        }
        return IdleResult(pending: pending, seconds: seconds, nextWake: nextWake, engine: engine, baselines: baselines)
    }
}
