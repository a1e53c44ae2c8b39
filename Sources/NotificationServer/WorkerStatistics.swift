import Foundation

/// One worker's own figures, since it started (answers) or over a recent window (rate, lateness): what
/// ``ServerMetrics/snapshot(at:)`` reads and `/v1/status` shows beside the cluster's.
public struct WorkerStatistics: Sendable, Hashable, Codable {
    /// The worker's name (``ServerMetrics/worker``).
    public var worker: String
    /// APNs answers since the worker started, by reason (`Success` for a 200).
    public var answers: [String: Int]
    /// Notifications APNs accepted from this worker per second, over the last ``ServerMetrics/rateWindow`` seconds.
    public var deliveriesPerSecond: Double
    /// The median lateness of this worker's last ``ServerMetrics/latenessSamples`` accepted notifications, in seconds.
    public var latenessP50: TimeInterval?
    /// The 99th percentile of the same.
    public var latenessP99: TimeInterval?

    /// Creates figures; ``ServerMetrics/snapshot(at:)`` makes them.
    public init(
        worker: String, answers: [String: Int] = [:], deliveriesPerSecond: Double = 0,
        latenessP50: TimeInterval? = nil, latenessP99: TimeInterval? = nil
    ) {
        self.worker = worker
        self.answers = answers
        self.deliveriesPerSecond = deliveriesPerSecond
        self.latenessP50 = latenessP50
        self.latenessP99 = latenessP99
    }
}
