import Foundation
import PostgresNIO

// Server mode's figures (issue 12): what every worker reads alike from the shared tables.
extension PostgresNotificationStore {
    /// How many of the newest history rows and dead letters a window looks at, at most: the tables' primary keys
    /// give the newest rows cheaply whatever their size, and a window with more rows than this is counted from these
    /// (its rate is then a lower bound, said by ``ClusterStatistics/window``).
    static let statisticsRowLimit = 100_000

    /// The outcomes of a fire that was presented (the notification reached the device or the screen), whatever the
    /// person did next.
    static let presentedOutcomes = ["delivered", "silenced", "action", "dismissed", "removed"]

    /// The cluster's figures at an instant, read in one snapshot.
    ///
    /// - Parameters:
    ///   - date: The instant "now" (the worker's clock).
    ///   - window: How far back rates and lateness look, in seconds (60 by default).
    /// - Returns: Pending, due backlog, claims, devices, and over the window: fires by outcome, deliveries per
    ///   second, lateness p50/p99 of delivered fires, dead letters by reason.
    /// - Throws: What the server answers.
    public func clusterStatistics(at date: Date, window: TimeInterval = 60) async throws -> ClusterStatistics {
        let now = date.timeIntervalSince1970
        let since = now - window
        let limit = Self.statisticsRowLimit
        let presented = Self.presentedOutcomes
        return try await read { connection, logger in
            var statistics = ClusterStatistics(date: date, window: window)
            for try await (pending, due, claimed) in try await connection.query(
                """
                SELECT count(*)::integer,
                    (count(*) FILTER (WHERE next_fire <= \(now) AND (claim_until IS NULL OR claim_until <= \(now))))::integer,
                    (count(*) FILTER (WHERE claim_until > \(now)))::integer
                FROM pending
                """, logger: logger
            ).decode((Int, Int, Int).self) {
                (statistics.pending, statistics.dueBacklog, statistics.claimed) = (pending, due, claimed)
            }
            for try await (active, inactive) in try await connection.query(
                "SELECT (count(*) FILTER (WHERE active))::integer, (count(*) FILTER (WHERE NOT active))::integer FROM device",
                logger: logger
            ).decode((Int, Int).self) {
                (statistics.activeDevices, statistics.inactiveDevices) = (active, inactive)
            }
            for try await (outcome, count) in try await connection.query(
                """
                SELECT outcome, count(*)::integer FROM (SELECT outcome, acted_at FROM history ORDER BY id DESC LIMIT \(limit)) AS recent
                WHERE acted_at > \(since) AND acted_at <= \(now) GROUP BY outcome
                """, logger: logger
            ).decode((String, Int).self) {
                statistics.outcomes[outcome] = count
            }
            for try await (count, p50, p99) in try await connection.query(
                """
                SELECT count(*)::integer,
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY acted_at - due), -- a NULL due (no trigger) is left out
                    percentile_cont(0.99) WITHIN GROUP (ORDER BY acted_at - due)
                FROM (SELECT outcome, due, acted_at FROM history ORDER BY id DESC LIMIT \(limit)) AS recent
                WHERE acted_at > \(since) AND acted_at <= \(now) AND outcome = ANY(\(presented))
                """, logger: logger
            ).decode((Int, Double?, Double?).self) {
                statistics.deliveriesPerSecond = window > 0 ? Double(count) / window : 0
                (statistics.latenessP50, statistics.latenessP99) = (p50, p99)
            }
            for try await (reason, count) in try await connection.query(
                """
                SELECT reason, count(*)::integer FROM (SELECT reason, at FROM dead_letter ORDER BY id DESC LIMIT \(limit)) AS recent
                WHERE at > \(since) AND at <= \(now) GROUP BY reason
                """, logger: logger
            ).decode((String, Int).self) {
                statistics.deadLetters[reason] = count
            }
            return statistics
        }
    }
}
