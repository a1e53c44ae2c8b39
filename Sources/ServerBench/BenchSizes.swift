import Foundation

/// What one run of `unotify-server-bench` measures, and at which sizes (from the flags and `--quick`).
struct BenchSizes: Sendable {
    /// The figures to measure (1…4).
    var only: Set<Int>
    /// Devices registered, spread over `zones` time zones (the first of the system's zone names).
    var devices: Int
    var zones: Int
    /// 1: requests scheduled through each API, in calls of `swiftBatch` (Swift API) and `httpBatch` (HTTP API).
    var requests: Int
    var swiftBatch: Int
    var httpBatch: Int
    /// 2: requests due at one instant, the worker counts (the first is the baseline), the APNs round trip.
    var burst: Int
    var workers: [Int]
    var answerDelay: Duration
    /// 3: requests pending at least, requests measured, over how many seconds, by how many workers.
    var pending: Int
    var latenessCount: Int
    var latenessSpan: Double
    var latenessWorkers: Int
    /// 4: pushes per route and concurrent streams on the one connection.
    var pushes: Int
    var streams: Int
    /// Whether PostgreSQL flushes commits to disk.
    var durable: Bool
    var quick: Bool

    /// Whether the run needs PostgreSQL, the devices and the devices' side (figures 1 to 3).
    var needsCluster: Bool { !only.isDisjoint(with: [1, 2, 3]) }
}
