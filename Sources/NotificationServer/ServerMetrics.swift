import Foundation
import NotificationEngine
import NotificationStorePostgres
import Prometheus
import Synchronization

/// One worker's own figures: APNs answers by reason, deliveries, lateness; kept in memory for `/v1/status` and
/// exported with the cluster's (read from the database at each scrape) in Prometheus's text format on `/metrics`.
///
/// Each worker has its own registry (no process-wide `MetricsSystem` bootstrap), so several workers in one process,
/// as in the tests, keep their figures apart. Prometheus sums the workers' counters; the cluster gauges are the
/// same on every worker, so take `max` (or any one worker's) of them.
///
/// ```swift
/// let metrics = ServerMetrics(worker: "worker-1")
/// metrics.recordAnswer("Success", lateness: 0.004, at: clock.now)
/// print(metrics.snapshot(at: clock.now).answers)   // ["Success": 1]
/// ```
public final class ServerMetrics: Sendable {
    /// This worker's name in the figures (the `worker` label): its host name and process id by default.
    public let worker: String
    /// The registry `/metrics` emits.
    public let registry: PrometheusCollectorRegistry
    private let state = Mutex(State())
    private let deliveries: Counter
    private let lateness: ValueHistogram
    private let renewalFailures: Counter
    private let takenOver: Counter

    /// The number of recent deliveries the worker's lateness percentiles are computed from.
    public static let latenessSamples = 1_000
    /// The window, in seconds, the worker's deliveries per second cover.
    public static let rateWindow: TimeInterval = 60
    /// Lateness buckets, in seconds: from a millisecond to an hour.
    public static let latenessBuckets: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300, 3600]

    /// Buckets of the API's request durations, in seconds: from a millisecond to 10 seconds.
    public static let requestDurationBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// How many of the newest pushes `/metrics` shows figures of (`unotify_push_*{message_id}`).
    public static let pushesExported = 10
    /// How many topics (apps, by name) `/metrics` shows figures of (`unotify_topic_*{topic}`).
    public static let topicsExported = 20

    private struct State {
        /// The per-push and per-topic gauges last exported, by their labels (removed when a push leaves the newest,
        /// or a failure reason or topic is no longer given).
        var seriesGauges: [[String]: Gauge] = [:]
        var answers: [String: Int] = [:]
        var recentLateness: [TimeInterval] = []
        var nextSample = 0
        var recentDeliveries: [Date] = []
    }

    /// Creates a worker's figures.
    ///
    /// - Parameter worker: The worker's name in the figures; `host:pid` by default.
    public init(worker: String = "\(ProcessInfo.processInfo.hostName):\(getpid())") {
        self.worker = worker
        registry = PrometheusCollectorRegistry()
        deliveries = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "worker_deliveries", unitName: "total",
                helpText: "Notifications APNs accepted from this worker."),
            labels: [("worker", worker)])
        lateness = registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "worker_delivery_lateness", unitName: "seconds",
                helpText: "From a fire's due instant to APNs's acceptance, on this worker."),
            labels: [("worker", worker)], buckets: Self.latenessBuckets)
        // Exported from the start (at 0), so a rate or an alert on them has a series before the first event.
        renewalFailures = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "worker_claim_renewal_failures", unitName: "total",
                helpText: "Renewals of this worker's claims that failed (the store was unreachable)."),
            labels: [("worker", worker)])
        takenOver = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "worker_claims_taken_over", unitName: "total",
                helpText: "Claims of this worker found taken over by another worker after their lease ended."),
            labels: [("worker", worker)])
    }

    /// Buckets of the store's waits for a pooled connection: from a millisecond to a minute (the connection wait is
    /// 15 seconds by default, `--database-connection-wait`).
    public static let connectionWaitBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
        .milliseconds(500), .seconds(1), .seconds(5), .seconds(15), .seconds(30), .seconds(60),
    ]

    /// Counts `store`'s calls on its connection pool in this worker's registry, labelled with the worker's name:
    /// `unotify_database_calls_in_flight`, `unotify_database_connection_wait_seconds` and
    /// `unotify_database_call_failures_total{reason}` (``PostgresNotificationStore/exportMetrics(to:dimensions:)``,
    /// through swift-metrics). ``ServerWorker`` calls it for its store.
    ///
    /// ```swift
    /// metrics.exportDatabaseMetrics(of: store)
    /// ```
    public func exportDatabaseMetrics(of store: PostgresNotificationStore) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["unotify_database_connection_wait_seconds"] = Self.connectionWaitBuckets
        store.exportMetrics(to: factory, dimensions: [("worker", worker)])
    }

    /// Records one answer of the server API (``ServerAPI``'s metrics middleware calls it for every request).
    ///
    /// - Parameters:
    ///   - route: The method and the route's pattern (`PUT /v1/devices/{id}`), or `unmatched`: never the raw path,
    ///     so the number of series stays bounded whatever clients send.
    ///   - status: The answer's HTTP status.
    ///   - seconds: From the request's arrival at the router to the answer's head.
    public func recordRequest(route: String, status: Int, seconds: Double) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "api_requests", unitName: "total",
                helpText: "Requests the server API answered, by route pattern and status."),
            labels: [("worker", worker), ("route", route), ("status", "\(status)")]
        ).increment()
        registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "api_request_duration", unitName: "seconds",
                helpText: "Time the server API took to answer, by route pattern."),
            labels: [("worker", worker), ("route", route)], buckets: Self.requestDurationBuckets
        ).record(max(0, seconds))
    }

    /// Counts an event of the engine's claim renewal (``EngineConfiguration/claimRenewalObserver``; ``ServerWorker``
    /// sets it): a failed renewal, or claims found taken over (counted one per claim).
    public func recordClaimRenewal(_ event: ClaimRenewalEvent) {
        switch event {
        case .renewalFailed: renewalFailures.increment()
        case .takenOver(let claims): takenOver.increment(by: Int64(claims))
        }
    }

    /// Records one answer for one attempt at a fire.
    ///
    /// - Parameters:
    ///   - reason: `Success` for a 200, APNs's reason for a refusal (`BadDeviceToken`, `Unregistered`, ...), or what
    ///   the worker saw instead (`GaveUp` after the client's retries, `ClientRefused` before sending).
    ///   - lateness: For a success, how late the notification left, in seconds.
    ///   - date: When (the worker's clock).
    public func recordAnswer(_ reason: String, lateness seconds: TimeInterval? = nil, at date: Date) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "unotify", metricName: "worker_apns_answers", unitName: "total",
                helpText: "APNs answers this worker received, by reason (Success for a 200)."),
            labels: [("worker", worker), ("reason", reason)]
        ).increment()
        guard reason == "Success" else {
            state.withLock { $0.answers[reason, default: 0] += 1 }
            return
        }
        deliveries.increment()
        if let seconds { lateness.record(max(0, seconds)) }
        state.withLock { state in
            state.answers[reason, default: 0] += 1
            state.recentDeliveries.append(date)
            let horizon = date.addingTimeInterval(-Self.rateWindow)
            if let first = state.recentDeliveries.firstIndex(where: { $0 > horizon }), first > 0 {
                state.recentDeliveries.removeFirst(first)
            }
            guard let seconds else { return }
            if state.recentLateness.count < Self.latenessSamples {
                state.recentLateness.append(seconds)
            } else {
                state.recentLateness[state.nextSample] = seconds
            }
            state.nextSample = (state.nextSample + 1) % Self.latenessSamples
        }
    }

    /// This worker's figures now.
    ///
    /// - Parameter date: "Now" (the worker's clock).
    public func snapshot(at date: Date) -> WorkerStatistics {
        state.withLock { state in
            let horizon = date.addingTimeInterval(-Self.rateWindow)
            let recent = state.recentDeliveries.count { $0 > horizon && $0 <= date }
            let sorted = state.recentLateness.sorted()
            return WorkerStatistics(
                worker: worker, answers: state.answers, deliveriesPerSecond: Double(recent) / Self.rateWindow,
                latenessP50: Self.percentile(0.5, of: sorted), latenessP99: Self.percentile(0.99, of: sorted))
        }
    }

    /// The Prometheus text exposition of this worker's figures, of `cluster`'s, of the newest pushes' and of the
    /// topics'.
    ///
    /// Each push in `pushes` becomes gauges labelled with its message identifier (`unotify_push_targeted`, `_sent`,
    /// `_accepted`, `_failed`, `_pending`, `_cancelled`, `_received`, `_opened`, `_dismissed`, and
    /// `unotify_push_failed_by_reason` with a `reason` label); each topic in `topics` the same figures as
    /// `unotify_topic_*{topic}`. A series that was exported before and is not given any more is removed, so there are
    /// never more than those of ``pushesExported`` pushes and ``topicsExported`` topics.
    ///
    /// - Parameters:
    ///   - cluster: The database's figures, read for this scrape.
    ///   - pushes: The newest pushes' statistics, read for this scrape (by message identifier).
    ///   - topics: Topics' statistics (over every push to their devices), read for this scrape.
    public func exposition(
        cluster: ClusterStatistics, pushes: [PushStatistics] = [],
        topics: [(topic: String, statistics: PushStatistics)] = []
    ) -> String {
        func gauge(_ name: String, _ help: String, _ value: Double, labels: [(String, String)] = []) {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(namespace: "unotify", metricName: name, unitName: "", helpText: help),
                labels: labels
            ).set(value)
        }
        gauge("cluster_pending", "Requests waiting for a fire, over every device.", Double(cluster.pending))
        gauge("cluster_due_backlog", "Due fires no worker has delivered or claimed yet.", Double(cluster.dueBacklog))
        gauge("cluster_claimed", "Due fires a worker holds a live claim on.", Double(cluster.claimed))
        gauge("cluster_devices", "Registered devices.", Double(cluster.activeDevices), labels: [("state", "active")])
        gauge("cluster_devices", "Registered devices.", Double(cluster.inactiveDevices), labels: [("state", "inactive")])
        gauge(
            "cluster_deliveries_per_second", "Delivered fires per second over the last minute, every worker together.",
            cluster.deliveriesPerSecond)
        exportSeries(pushes: pushes, topics: topics)
        return registry.emitToString()
    }

    /// The figures each push and each topic is exported with: name (after `push_` or `topic_`), help, value.
    private static let seriesFigures: [(String, String, @Sendable (PushStatistics) -> Int)] = [
        ("targeted", "Devices fanned out to (per topic: sent and still pending).", { $0.targeted }),
        ("sent", "Notifications APNs answered or that failed for good (accepted + failed).", { $0.sent }),
        ("accepted", "Notifications APNs accepted.", { $0.accepted }),
        ("failed", "Notifications that failed for good.", { $0.failedCount }),
        ("pending", "Requests not sent yet.", { $0.pending }),
        ("cancelled", "Requests removed by cancelling (per push only).", { $0.cancelled }),
        ("received", "Devices that reported receiving it.", { $0.received }),
        ("opened", "Devices that reported opening it.", { $0.opened }),
        ("dismissed", "Devices that reported dismissing it.", { $0.dismissed }),
    ]

    /// Sets the per-push and per-topic gauges, and removes those no longer given.
    private func exportSeries(pushes: [PushStatistics], topics: [(topic: String, statistics: PushStatistics)]) {
        var rows: [(kind: String, label: (String, String), statistics: PushStatistics)] = pushes.compactMap { push in
            push.messageID.map { ("push", ("message_id", $0), push) }
        }
        rows += topics.map { ("topic", ("topic", $0.topic), $0.statistics) }
        state.withLock { state in
            var exported: [[String]: Gauge] = [:]
            func set(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Int) {
                let key = [name] + labels.flatMap { [$0.0, $0.1] }
                let gauge =
                    state.seriesGauges[key]
                    ?? registry.makeGauge(
                        descriptor: MetricNameDescriptor(
                            namespace: "unotify", metricName: name, unitName: "", helpText: help),
                        labels: labels)
                gauge.set(Double(value))
                exported[key] = gauge
            }
            for row in rows {
                for (name, help, value) in Self.seriesFigures {
                    set("\(row.kind)_\(name)", help, [row.label], value(row.statistics))
                }
                for (reason, count) in row.statistics.failed {
                    set(
                        "\(row.kind)_failed_by_reason", "Notifications that failed for good, by reason.",
                        [row.label, ("reason", reason)], count)
                }
            }
            for (key, gauge) in state.seriesGauges where exported[key] == nil { registry.unregisterGauge(gauge) }
            state.seriesGauges = exported
        }
    }

    /// The nearest-rank percentile of sorted values, or `nil` without values.
    static func percentile(_ fraction: Double, of sorted: [TimeInterval]) -> TimeInterval? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }
}
