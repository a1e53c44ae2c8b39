import Foundation
import Logging
import NotificationEngine
import NotificationModel
import PostgresNIO

/// Rows written into `pending` by one plain `INSERT ... SELECT generate_series` inside the server: no Swift per row,
/// no scheduling. The baseline of the schedule rates (into a copy of the table, with its indexes), and the quick way
/// to reach figure 3's pending count (into the table itself; the output says so).
enum RawPending {
    /// Seconds one `INSERT ... SELECT` of `rows` rows for the devices `bench-0` … `bench-<devices - 1>` takes, with
    /// identifiers `<prefix>0` …, each firing `farAway` seconds from now plus its index, its spec `spec`.
    ///
    /// - Parameters:
    ///   - copy: Whether to insert into a fresh copy of `pending` (`LIKE pending INCLUDING ALL`, dropped after),
    ///     rather than into `pending` itself.
    static func insert(
        _ configuration: PostgresClient.Configuration, rows: Int, devices: Int, prefix: String, spec: RequestSpec,
        copy: Bool
    ) async throws -> Double {
        var logger = Logger(label: "unotify-server-bench")
        logger.logLevel = .error  // not the warning of a query that comes before the pool's first run
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let table = copy ? "bench_pending" : "pending"
            if copy { try await client.query("CREATE TABLE bench_pending (LIKE pending INCLUDING ALL)") }
            let encoded = ByteBuffer(bytes: try StoredJSON.encode(spec))
            let now = Date().timeIntervalSince1970
            let started = ContinuousClock.now
            try await client.query(
                """
                INSERT INTO \(unescaped: table) (app, identifier, spec, added_at, next_fire, floating)
                SELECT 'device:bench-' || (i % \(devices)), \(prefix) || i, \(encoded), \(now), \(now + 30 * 86_400) + i, false
                FROM generate_series(0, \(rows - 1)) AS i
                """)
            let seconds = (ContinuousClock.now - started).seconds
            if copy { try await client.query("DROP TABLE bench_pending") }
            return seconds
        }
    }
}
