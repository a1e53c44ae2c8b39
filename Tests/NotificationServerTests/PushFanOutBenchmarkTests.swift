import Foundation
import Logging
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import Testing

/// The fan-out rate of one tag push (issue 20's benchmark, at a size a test can afford): opt-in with
/// `OPENUN_PUSH_BENCH=1`, `OPENUN_PUSH_BENCH_DEVICES` devices (20,000 by default), against a raw PostgreSQL
/// `INSERT ... SELECT` of the same rows into `pending`, measured in the same run on the same database.
@Suite(
    "Push service: fan-out rate against a raw INSERT ... SELECT", .timeLimit(.minutes(10)),
    .enabled(if: ProcessInfo.processInfo.environment["OPENUN_PUSH_BENCH"] == "1"))
struct PushFanOutBenchmarkTests {
    @Test("one tag push fanned out in pages of 500, and the same rows inserted by one statement")
    func fanOutRate() async throws {
        let count = ProcessInfo.processInfo.environment["OPENUN_PUSH_BENCH_DEVICES"].flatMap(Int.init) ?? 20_000
        let configuration = try await freshDatabase()
        let start = instant("2026-11-26T12:00:00Z")
        let logger = Logger(label: "bench")
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                // The devices and their tag, straight into the tables (registering 20,000 one by one is not the
                // point here).
                try await client.query(
                    """
                    INSERT INTO device (id, token, topic, environment, time_zone, locale, active, created_at, updated_at)
                    SELECT 'b' || lpad(g::text, 8, '0'), lpad(to_hex(g), 64, '0'), 'com.example.app', 'production',
                        'UTC', 'en_US', true, 0, 0 FROM generate_series(1, \(count)) g
                    """, logger: logger)
                try await client.query(
                    "INSERT INTO device_tag (device_id, tag) SELECT id, 'fans' FROM device", logger: logger)
                try await client.query("ANALYZE", logger: logger)

                var content = NotificationPayload()
                content.title = "bench"
                let spec = try JSONEncoder().encode(RequestSpec(identifier: "raw", content: content, trigger: nil))
                let clock = ContinuousClock()
                let rawStart = clock.now
                try await client.query(
                    """
                    INSERT INTO pending (app, identifier, spec, added_at, next_fire, floating)
                    SELECT 'device:' || d.id, 'raw', \(spec), 0, 0, false FROM device d
                    WHERE d.active AND EXISTS (SELECT 1 FROM device_tag t WHERE t.device_id = d.id AND t.tag = 'fans')
                    """, logger: logger)
                let raw = clock.now - rawStart
                #expect(try await store.pendingCount() == count)
                try await client.query("DELETE FROM pending WHERE identifier = 'raw'", logger: logger)

                let message = PushMessage(
                    target: .tag(.tag("fans")), content: content, sendTime: .now, createdAt: start)
                try await store.insertPushes([message])
                let fanStart = clock.now
                var pages = 0
                while try await store.fanOutNextPage(at: start, pageSize: 500, cap: nil) != nil { pages += 1 }
                let fanOut = clock.now - fanStart
                #expect(try await store.pendingCount() == count)
                #expect(try await store.push(id: message.id)?.targeted == count)
                func seconds(_ duration: Duration) -> Double {
                    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                }
                print(
                    """
                    push fan-out of \(count) devices: \(pages) pages in \(String(format: "%.2f", seconds(fanOut))) s \
                    (\(Int(Double(count) / seconds(fanOut))) devices/s); raw INSERT ... SELECT: \
                    \(String(format: "%.2f", seconds(raw))) s (\(Int(Double(count) / seconds(raw))) rows/s); \
                    ratio \(String(format: "%.1f", seconds(fanOut) / seconds(raw)))
                    """)
            }
        }
    }
}
