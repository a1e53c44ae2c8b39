import Foundation
import Logging
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import Testing

/// The fan-out rate of one tag push and the receipts ingested per second (issue 20's benchmarks, at sizes a test can
/// afford): opt-in with `OPENUN_PUSH_BENCH=1`, `OPENUN_PUSH_BENCH_DEVICES` devices (20,000 by default), each against a
/// raw PostgreSQL `INSERT ... SELECT` of the same rows, measured in the same run on the same database.
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
                try await Self.insertDevices(count, client, logger)
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

    @Test("receipts from 1,000 devices, 10 pushes each, 8 devices at once, and the same rows inserted by one statement")
    func receiptRate() async throws {
        let deviceCount = 1_000
        let pushCount = 10
        let configuration = try await freshDatabase()
        let start = instant("2026-11-26T12:00:00Z")
        let logger = Logger(label: "bench")
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                try await Self.insertDevices(deviceCount, client, logger)
                var content = NotificationPayload()
                content.title = "bench"
                let pushes = (0..<pushCount).map { _ in
                    PushMessage(target: .all, content: content, sendTime: .now, createdAt: start)
                }
                try await store.insertPushes(pushes)
                let ids = pushes.map(\.id)
                let clock = ContinuousClock()
                // Each device reports "opened" for every push in one call (its implied "received" too: 20 rows).
                let began = clock.now
                try await withThrowingTaskGroup(of: Void.self) { devices in
                    for lane in 0..<8 {
                        devices.addTask {
                            for index in stride(from: lane, to: deviceCount, by: 8) {
                                let receipts = ids.map { PushReceipt(messageID: $0, kind: .opened, date: start) }
                                let result = try await store.recordReceipts(
                                    receipts, deviceID: "b" + String(format: "%08d", index + 1))
                                #expect(result.recorded == pushCount)  // the explicit ones; "received" is implied
                            }
                        }
                    }
                    try await devices.waitForAll()
                }
                let ingest = clock.now - began
                let rows = deviceCount * pushCount * 2
                var stored = 0
                for try await count in try await client.query("SELECT count(*)::integer FROM push_receipt", logger: logger)
                    .decode(Int.self)
                {
                    stored = count
                }
                #expect(stored == rows)
                try await client.query("CREATE TABLE bench_receipt (LIKE push_receipt INCLUDING ALL)", logger: logger)
                let rawStart = clock.now
                try await client.query(
                    """
                    INSERT INTO bench_receipt (message_id, device_id, kind, action, at)
                    SELECT m, d.id, k, NULL, 0 FROM device d, unnest(\(ids)::text[]) AS m,
                        unnest(ARRAY['received', 'opened']) AS k
                    """, logger: logger)
                let raw = clock.now - rawStart
                func seconds(_ duration: Duration) -> Double {
                    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                }
                print(
                    """
                    receipts: \(rows) rows from \(deviceCount) devices in \(String(format: "%.2f", seconds(ingest))) s \
                    (\(Int(Double(rows) / seconds(ingest))) receipts/s, \(Int(Double(deviceCount) / seconds(ingest))) calls/s); \
                    raw INSERT ... SELECT: \(String(format: "%.3f", seconds(raw))) s \
                    (\(Int(Double(rows) / seconds(raw))) rows/s); ratio \(String(format: "%.1f", seconds(ingest) / seconds(raw)))
                    """)
            }
        }
    }

    /// Devices `b00000001` ... straight into the table (registering thousands one by one is not what is measured).
    static func insertDevices(_ count: Int, _ client: PostgresClient, _ logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO device (id, token, topic, environment, time_zone, locale, active, created_at, updated_at)
            SELECT 'b' || lpad(g::text, 8, '0'), lpad(to_hex(g), 64, '0'), 'com.example.app', 'production',
                'UTC', 'en_US', true, 0, 0 FROM generate_series(1, \(count)) g
            """, logger: logger)
    }
}
