import CoreMetrics

/// The figures of a store's calls on its connection pool, through swift-metrics: PostgresNIO exposes none, but every
/// call goes through the store's `ConnectionLease`, which counts them here
/// (``PostgresNotificationStore/exportMetrics(to:dimensions:)``).
///
/// - `unotify_database_calls_in_flight` (gauge): calls that hold a pooled connection and are not answered yet (a call
///   failed on a closed connection or past its deadline stops counting when it is failed, even when PostgresNIO never
///   resumes its work);
/// - `unotify_database_connection_wait_seconds` (histogram): how long each call waited for its connection, including
///   the calls that gave up after the connection wait;
/// - `unotify_database_call_failures_total{reason}` (counter): calls the lease failed itself, by `reason`:
///   `connection_wait_timeout` (no connection within the wait), `connection_closed` (the connection closed under the
///   call) and `call_deadline` (the call outlived the call deadline). Errors the server answered (a constraint, a
///   syntax error) are not counted here.
///
/// ```swift
/// store.exportMetrics(to: PrometheusMetricsFactory(registry: registry), dimensions: [("worker", "worker-1")])
/// ```
final class DatabaseMetrics: Sendable {
    /// Why the lease failed a call itself.
    enum Failure: String, CaseIterable, Sendable {
        case connectionWaitTimeout = "connection_wait_timeout"
        case connectionClosed = "connection_closed"
        case callDeadline = "call_deadline"
    }

    /// The gauge's name.
    static let inFlightName = "unotify_database_calls_in_flight"
    /// The histogram's name.
    static let waitName = "unotify_database_connection_wait_seconds"
    /// The counter's name.
    static let failuresName = "unotify_database_call_failures_total"

    let inFlight: Gauge
    let wait: CoreMetrics.Timer
    let failures: [Failure: Counter]

    /// Makes the figures with `factory`, each with `dimensions` (a worker's name), the counters at 0.
    init(factory: any MetricsFactory, dimensions: [(String, String)]) {
        inFlight = Gauge(label: Self.inFlightName, dimensions: dimensions, factory: factory)
        wait = CoreMetrics.Timer(label: Self.waitName, dimensions: dimensions, factory: factory)
        var failures: [Failure: Counter] = [:]
        for failure in Failure.allCases {
            let counter = Counter(
                label: Self.failuresName, dimensions: dimensions + [("reason", failure.rawValue)], factory: factory)
            counter.increment(by: 0)
            failures[failure] = counter
        }
        self.failures = failures
    }

    /// Records how long a call waited for its connection (or until it gave up).
    func recordWait(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        wait.recordNanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
