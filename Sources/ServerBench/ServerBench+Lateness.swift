import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import PushTestSupport

extension ServerBench {
    /// Figure 3: with at least `pending` requests pending (topped up by a raw insert of far-future rows when figure 1
    /// left fewer), `latenessCount` one-shot requests fall due `latenessSpan / latenessCount` apart and
    /// `latenessWorkers` workers deliver them to the devices' side answering at once; lateness is each request's
    /// arrival at the endpoint minus its due instant, against a bare sleep-until of the same offsets.
    func lateness(_ cluster: Cluster) async throws -> [Figure] {
        let store = cluster.store
        var pending = try await store.pendingCount()
        var topUp = ""
        if pending < sizes.pending {
            let missing = sizes.pending - pending
            progress(
                "3: topping up \(Format.count(pending)) pending to \(Format.count(sizes.pending)) with a raw INSERT ... SELECT"
            )
            let seconds = try await RawPending.insert(
                cluster.configuration, rows: missing, devices: cluster.deviceIDs.count, prefix: "fill-",
                spec: RequestSpec(
                    identifier: "fill", content: Self.content("fill"),
                    trigger: .timeInterval(30 * 86_400, repeats: false)),
                copy: false)
            topUp =
                ", \(Format.count(missing)) of them far-future rows of a raw INSERT ... SELECT (\(Format.duration(seconds)))"
            pending = try await store.pendingCount()
        }
        let count = sizes.latenessCount
        let step = sizes.latenessSpan / Double(count)
        let offsets = (0..<count).map { Double($0) * step }
        let start = Date().addingTimeInterval(3)
        let ids = cluster.deviceIDs
        let spaced = offsets.enumerated().map { index, offset in
            PendingRequest(
                appID: Device.appID(forDevice: ids[index % ids.count]),
                spec: RequestSpec(
                    identifier: "spaced-\(index)", content: Self.content("spaced-\(index)"),
                    trigger: .timeInterval(3 + offset, repeats: false)),
                addedAt: Date(), nextFireDate: start.addingTimeInterval(offset))
        }
        _ = try await store.insertPending(batch: spaced, cap: nil, at: Date())
        progress(
            "3: \(count) requests due over \(Format.duration(sizes.latenessSpan)), \(sizes.latenessWorkers) workers, \(Format.count(pending)) pending"
        )
        let side = cluster.side
        let before = side.receivedCount
        let arrived = try await BenchWorkers.with(
            sizes.latenessWorkers, configuration: cluster.configuration, side: side
        ) {
            // Counted by title: a fire of an earlier figure whose recording a stopped worker left undone arrives again
            // when its lease ends.
            await eventually(within: 600 + sizes.latenessSpan) {
                side.received(since: before).filter { $0.title.hasPrefix("spaced-") }.count >= count
            }
        }
        let dueByTitle = Dictionary(
            uniqueKeysWithValues: offsets.enumerated().map {
                ("spaced-\($0.offset)", start.addingTimeInterval($0.element))
            })
        let received = side.received(since: before)
        let lateness = Percentiles(
            received.compactMap { entry in dueByTitle[entry.title].map { entry.arrivedAt.timeIntervalSince($0) } })
        let bare = Percentiles(try await bareSleepLateness(offsets: offsets))
        return [
            Figure(
                number: "3",
                measure: "lateness p50 / p99 (arrival at the APNs endpoint − due), \(count) requests over "
                    + "\(Format.duration(sizes.latenessSpan)), \(sizes.latenessWorkers) workers, \(Format.count(pending)) pending\(topUp)"
                    + (arrived ? "" : " (INCOMPLETE: \(lateness.count) of \(count) arrived)"),
                result: "\(Format.duration(lateness.p50)) / \(Format.duration(lateness.p99))",
                baseline: "bare sleep-until \(Format.duration(bare.p50)) / \(Format.duration(bare.p99))",
                ratio: "\(Format.ratio(lateness.p50, bare.p50)) / \(Format.ratio(lateness.p99, bare.p99))",
                target: "issue 12: a figure at 1M pending; the engine alone (issue 11 #4): ≤ ×1.5")
        ]
    }
}
