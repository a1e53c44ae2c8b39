import CoreMetrics

// The pool's figures (issue 12): PostgresNIO exposes none, so the store counts its own calls.
extension PostgresNotificationStore {
    /// Counts this store's calls on its pool from now on, through swift-metrics: the calls holding a connection and not
    /// answered yet (`unotify_database_calls_in_flight`), each call's wait for its connection
    /// (`unotify_database_connection_wait_seconds`), and the calls failed for want of a connection, on a closed
    /// connection or past their deadline (`unotify_database_call_failures_total{reason}`; reasons
    /// `connection_wait_timeout`, `connection_closed`, `call_deadline`). Nothing is counted before it is called.
    ///
    /// A server-mode worker calls it with its own Prometheus registry (`ServerWorker` does), so the figures appear on
    /// its `/metrics` with a `worker` label.
    ///
    /// ```swift
    /// var factory = PrometheusMetricsFactory(registry: registry)
    /// store.exportMetrics(to: factory, dimensions: [("worker", "worker-1")])
    /// ```
    ///
    /// - Parameters:
    ///   - factory: The swift-metrics backend to count with (not the process-wide `MetricsSystem`, unless given).
    ///   - dimensions: Labels every figure carries.
    public func exportMetrics(to factory: any MetricsFactory, dimensions: [(String, String)] = []) {
        lease.export(to: factory, dimensions: dimensions)
    }
}
