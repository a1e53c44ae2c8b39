import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import PushTestSupport

extension ServerBench {
    /// Figure 2: `burst` one-shot requests (one per device, round the devices) due at one instant, delivered to the
    /// devices' side answering after `answerDelay`, by each worker count in turn; the rate is the burst over the time
    /// from the due instant (or the workers' start, when the insert ran past it) to the last arrival.
    func bursts(_ cluster: Cluster) async throws -> [Figure] {
        let side = cluster.side
        side.delayAnswers(by: sizes.answerDelay)
        defer { side.delayAnswers(by: nil) }
        var figures: [Figure] = []
        var baseline: Double?
        let milliseconds = Int(sizes.answerDelay.seconds * 1_000)
        for workers in sizes.workers {
            let burst = sizes.burst
            // The insert is not measured: the burst falls due after it (at about 20,000 rows/s, with 3 s to spare).
            let due = Date().addingTimeInterval(3 + Double(burst) / 20_000)
            progress(
                "2: inserting a burst of \(Format.count(burst)) due at \(due.formatted(.iso8601)) for \(workers) worker(s)"
            )
            try await Self.insertBurst(cluster, count: burst, due: due, label: "burst-\(workers)")
            let before = (all: side.receivedCount, distinct: side.distinctTitleCount)
            let outcome = try await BenchWorkers.with(workers, configuration: cluster.configuration, side: side) {
                let started = Date()
                // Counted by distinct title: a fire whose lease ran out before its worker recorded it is sent again.
                let arrived = await eventually(within: max(600, Double(burst) / 20)) {
                    side.distinctTitleCount - before.distinct >= burst
                }
                let last = Date()
                let count = side.distinctTitleCount - before.distinct
                // Stopping a worker between a send and its recording makes the fire arrive again after its lease
                // (in a later figure): the workers stop once nothing is due or claimed any more (the next wake-up is
                // the far-future rows', beyond any lease).
                let settled = try await eventually(within: 300) {
                    try await cluster.store.nextWakeDate(appID: nil).map { $0.timeIntervalSinceNow > 600 } ?? true
                }
                if !settled { progress("2: the burst's claims were not all recorded 300 s after its last arrival") }
                let repeats = (side.receivedCount - before.all) - (side.distinctTitleCount - before.distinct)
                return (started: started, last: last, arrived: arrived, count: count, repeats: repeats)
            }
            let from = max(due, outcome.started)
            let seconds = outcome.last.timeIntervalSince(from)
            let rate = Double(outcome.count) / seconds
            if baseline == nil { baseline = rate }
            progress(
                "2: \(workers) worker(s): \(Format.count(outcome.count)) in \(Format.duration(seconds)), "
                    + "\(Format.count(outcome.repeats)) repeats")
            figures.append(
                Figure(
                    number: "2",
                    measure:
                        "burst of \(Format.count(burst)) due at one instant, APNs answering after \(milliseconds) ms, "
                        + "\(workers) worker\(workers == 1 ? "" : "s")"
                        + (outcome.arrived
                            ? "" : " (INCOMPLETE: \(Format.count(outcome.count)) arrived before the deadline)")
                        + (outcome.started > due ? " (timed from the workers' start, after the due instant)" : "")
                        + "; repeats: \(Format.count(outcome.repeats))",
                    result: "\(Format.count(Int(rate))) /s (last after \(Format.duration(seconds)))",
                    baseline:
                        "\(sizes.workers[0]) worker\(sizes.workers[0] == 1 ? "" : "s") \(Format.count(Int(baseline ?? rate))) /s",
                    ratio: Format.ratio(rate, baseline ?? rate),
                    target: workers == 4 ? "issue 12: 4 workers close to ×4 of 1" : "–"))
        }
        return figures
    }

    /// Inserts `count` one-shot requests due at `due`, request `i` for device `i % devices`, through the store's batch
    /// insert, 5,000 per transaction.
    static func insertBurst(_ cluster: Cluster, count: Int, due: Date, label: String) async throws {
        let ids = cluster.deviceIDs
        let now = Date()
        for start in stride(from: 0, to: count, by: 5_000) {
            let batch = (start..<min(count, start + 5_000)).map { index in
                PendingRequest(
                    appID: Device.appID(forDevice: ids[index % ids.count]),
                    spec: RequestSpec(
                        identifier: "\(label)-\(index)", content: content("\(label)-\(index)"),
                        trigger: .timeInterval(max(1, due.timeIntervalSince(now)), repeats: false)),
                    addedAt: now, nextFireDate: due)
            }
            _ = try await cluster.store.insertPending(batch: batch, cap: nil, at: now)
        }
    }
}
