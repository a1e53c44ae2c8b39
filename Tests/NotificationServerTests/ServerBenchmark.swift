import BenchSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NotificationAPNsProvider
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresNIO
import Testing

/// Server mode's figures (docs/benchmarks.md, "Server mode"), each beside a baseline measured in the same run:
///
/// 1. Enqueue: registering devices in 400 zones, adding pending requests in batches through the store, one at a time
///    and in batches through the Swift API (`DeviceScheduler`) and through the HTTP API (AsyncHTTPClient over TCP),
///    against one raw `INSERT ... SELECT generate_series` of the same number of rows into a copy of the `pending`
///    table.
/// 2. A burst of requests due at one instant, delivered to our APNs endpoint answering after 20 ms (Apple's round
///    trip) by 1, 2 and 4 workers in this process, with every enqueued request still pending beside it.
/// 3. Lateness of requests due 20 ms apart with one worker, against a bare sleep-until on the same clock.
///
/// Opt-in, like the other benchmarks: `OPENUN_BENCH=1 swift test --filter ServerBenchmark`. Sizes:
/// `OPENUN_BENCH_DEVICES` (10,000), `OPENUN_BENCH_PENDING` (100,000), `OPENUN_BENCH_BURST` (2,000),
/// `OPENUN_BENCH_SCHEDULE` (2,000, requests added one at a time through each API), `OPENUN_BENCH_BATCH` (100,000,
/// requests added in batches through each API).
@Suite(
    "Server mode benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["OPENUN_BENCH"] != nil),
    .timeLimit(.minutes(60)))
struct ServerBenchmark {
    static func size(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }

    @Test("enqueue, bursts with 1, 2 and 4 workers, lateness, each against a baseline of the same run")
    func figures() async throws {
        let deviceCount = Self.size("OPENUN_BENCH_DEVICES", 10_000)
        let pendingCount = Self.size("OPENUN_BENCH_PENDING", 100_000)
        let burst = Self.size("OPENUN_BENCH_BURST", 2_000)
        let oneByOne = Self.size("OPENUN_BENCH_SCHEDULE", 2_000)
        let batched = Self.size("OPENUN_BENCH_BATCH", 100_000)
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let configuration = try await freshDatabase()
        var rows: [(String, String, String, String)] = []
        func row(_ figure: String, _ value: String, _ baseline: String, _ ratio: String) {
            rows.append((figure, value, baseline, ratio))
            print("ServerBenchmark: \(figure): \(value) (baseline \(baseline), \(ratio))")
        }
        let clock = ContinuousClock()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            // 1. Devices, then pending requests far in the future, 1,000 per transaction.
            let zones = Array(TimeZone.knownTimeZoneIdentifiers.prefix(400))
            let devices = (0..<deviceCount).map { registration("bench-\($0)", zone: zones[$0 % zones.count]) }
            var started = clock.now
            for device in devices { _ = try await store.registerDevice(device, at: Date()) }
            let registering = (clock.now - started).seconds
            row("register devices in \(zones.count) zones", "\(Format.count(deviceCount)) in \(Format.duration(registering)) "
                + "(\(Format.count(Int(Double(deviceCount) / registering)))/s)", "-", "-")
            let now = Date()
            let farAway = now.addingTimeInterval(30 * 86_400)
            let content = Self.content("Bench", "far away")
            started = clock.now
            for chunk in stride(from: 0, to: pendingCount, by: 1_000) {
                let batch = (chunk..<min(pendingCount, chunk + 1_000)).map { index in
                    PendingRequest(
                        appID: Device.appID(forDevice: devices[index % deviceCount].id),
                        spec: RequestSpec(
                            identifier: "far-\(index)", content: content, trigger: .timeInterval(30 * 86_400, repeats: false)),
                        addedAt: now, nextFireDate: farAway.addingTimeInterval(Double(index)))
                }
                _ = try await store.insertPending(batch: batch, cap: nil, at: now)
            }
            let enqueueing = (clock.now - started).seconds
            let raw = try await Self.rawInsert(configuration, rows: pendingCount, devices: deviceCount)
            let rate = Double(pendingCount) / enqueueing
            let rawRate = Double(pendingCount) / raw
            row(
                "enqueue \(Format.count(pendingCount)) pending, 1,000 per transaction",
                "\(Format.count(Int(rate)))/s", "raw INSERT ... SELECT \(Format.count(Int(rawRate)))/s",
                String(format: "x%.2f of raw", rate / rawRate))

            // One at a time through the Swift API, then through the HTTP API: daily 9:00 floating requests (each
            // pinned to its device's zone and planned there).
            let nine = TriggerSpec.calendar(
                { var components = CalendarComponents(); components.hour = 9; return components }(), repeats: true,
                matching: .apple)
            let scheduler = NotificationScheduler(store: store, clock: ServerWorker.utcClock, presenter: NoPresenter())
            let api = DeviceScheduler(store: store, scheduler: scheduler)
            started = clock.now
            for index in 0..<oneByOne {
                try await api.schedule(
                    RequestSpec(identifier: "swift-\(index)", content: Self.content("daily"), trigger: nine),
                    forDevice: devices[index % deviceCount].id)
            }
            let swiftRate = Double(oneByOne) / (clock.now - started).seconds
            row(
                "schedule one at a time, Swift API (DeviceScheduler), daily 9:00 in the device's zone",
                "\(Format.count(Int(swiftRate)))/s", "raw \(Format.count(Int(rawRate)))/s",
                String(format: "x%.3f of raw", swiftRate / rawRate))
            let server = ServerAPI(devices: api, token: "bench-token-0123456789")
            let httpRate = try await Application(router: server.router()).test(.ahc(.http)) { client in
                let started = clock.now
                for index in 0..<oneByOne {
                    let body = #"{"identifier":"http-\#(index)","title":"daily","trigger":{"calendar":{"hour":9},"repeats":true}}"#
                    let response = try await client.execute(
                        uri: "/v1/devices/\(devices[index % deviceCount].id)/requests", method: .post,
                        headers: [.authorization: "Bearer bench-token-0123456789", .contentType: "application/json"],
                        body: ByteBuffer(string: body))
                    #expect(response.status == .created)
                }
                return Double(oneByOne) / (clock.now - started).seconds
            }
            row(
                "schedule one at a time, HTTP API (one POST each, AsyncHTTPClient over TCP)",
                "\(Format.count(Int(httpRate)))/s", "raw \(Format.count(Int(rawRate)))/s",
                String(format: "x%.3f of raw", httpRate / rawRate))

            // In batches: the same daily 9:00 floating requests, `batched` of them over every device, through
            // DeviceScheduler.schedule(_:) (one call; chunks of 1,000 inside), then through POST /v1/request-batches
            // (1,000 per call, one call after the other).
            started = clock.now
            let swiftFailures = await api.schedule(
                (0..<batched).map { index in
                    DeviceRequest(
                        deviceID: devices[index % deviceCount].id,
                        spec: RequestSpec(
                            identifier: "swift-batch-\(index)", content: Self.content("daily"), trigger: nine))
                })
            let swiftBatchRate = Double(batched) / (clock.now - started).seconds
            #expect(swiftFailures.isEmpty, "a batch failed in part: the figure would not be of \(batched) requests")
            row(
                "schedule in batches, Swift API (DeviceScheduler.schedule(_:), one call of \(Format.count(batched))), "
                    + "daily 9:00 in the device's zone",
                "\(Format.count(Int(swiftBatchRate)))/s", "raw \(Format.count(Int(rawRate)))/s",
                String(
                    format: "x%.3f of raw (x%.0f one at a time)", swiftBatchRate / rawRate, swiftBatchRate / swiftRate))
            let httpBatchRate = try await Application(router: server.router()).test(.ahc(.http)) { client in
                let started = clock.now
                for start in stride(from: 0, to: batched, by: 1_000) {
                    let items = (start..<min(batched, start + 1_000)).map { index in
                        #"{"device":"\#(devices[index % deviceCount].id)","request":{"identifier":"http-batch-\#(index)","title":"daily","trigger":{"calendar":{"hour":9},"repeats":true}}}"#
                    }
                    let response = try await client.execute(
                        uri: "/v1/request-batches", method: .post,
                        headers: [.authorization: "Bearer bench-token-0123456789", .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"requests":[\#(items.joined(separator: ","))]}"#))
                    #expect(response.status == .ok)
                }
                return Double(batched) / (clock.now - started).seconds
            }
            row(
                "schedule in batches, HTTP API (POST /v1/request-batches, 1,000 per call, AsyncHTTPClient over TCP)",
                "\(Format.count(Int(httpBatchRate)))/s", "raw \(Format.count(Int(rawRate)))/s",
                String(format: "x%.3f of raw (x%.0f one at a time)", httpBatchRate / rawRate, httpBatchRate / httpRate))

            // 2. Bursts: `burst` requests due at one instant, for as many devices, with everything above pending;
            // the endpoint answers after 20 ms, as Apple's would from afar.
            side.delayAnswers(by: .milliseconds(20))
            var oneWorker = 0.0
            for workers in [1, 2, 4] {
                let due = Date().addingTimeInterval(3)
                let batch = (0..<burst).map { index in
                    PendingRequest(
                        appID: Device.appID(forDevice: devices[index % deviceCount].id),
                        spec: RequestSpec(
                            identifier: "burst-\(workers)-\(index)", content: Self.content("burst-\(workers)-\(index)"),
                            trigger: .timeInterval(3, repeats: false)),
                        addedAt: Date(), nextFireDate: due)
                }
                _ = try await store.insertPending(batch: batch, cap: nil, at: Date())
                let before = side.received.count
                let last = try await Self.withWorkers(workers, configuration: configuration, side: side) {
                    let arrived = await eventually(within: 600) { side.received.count - before >= burst }
                    #expect(arrived, "the burst did not arrive whole: no figure for it")
                    return Date()
                }
                let seconds = last.timeIntervalSince(due)
                let perSecond = Double(burst) / seconds
                if workers == 1 { oneWorker = perSecond }
                row(
                    "burst of \(Format.count(burst)) due at once, answers after 20 ms, \(workers) worker\(workers == 1 ? "" : "s")",
                    "\(Format.count(Int(perSecond)))/s (last after \(Format.duration(seconds)))",
                    "1 worker \(Format.count(Int(oneWorker)))/s", String(format: "x%.2f", perSecond / oneWorker))
            }

            // 3. Lateness: 300 requests 20 ms apart, one worker, answers at once, against a bare sleep-until of the
            // same offsets.
            side.delayAnswers(by: nil)
            let offsets = (0..<300).map { Double($0) * 0.02 }
            let start = Date().addingTimeInterval(3)
            let spaced = offsets.enumerated().map { index, offset in
                PendingRequest(
                    appID: Device.appID(forDevice: devices[index % deviceCount].id),
                    spec: RequestSpec(
                        identifier: "spaced-\(index)", content: Self.content("spaced-\(index)"),
                        trigger: .timeInterval(3 + offset, repeats: false)),
                    addedAt: Date(), nextFireDate: start.addingTimeInterval(offset))
            }
            _ = try await store.insertPending(batch: spaced, cap: nil, at: Date())
            try await Self.withWorkers(1, configuration: configuration, side: side) {
                let recorded = try await eventually(within: 600) {
                    try await store.history(appID: nil, limit: 400).filter { $0.requestIdentifier.hasPrefix("spaced-") }.count
                        >= offsets.count
                }
                #expect(recorded, "not every spaced request was recorded: the lateness figure would be partial")
            }
            let history = try await store.history(appID: nil, limit: 400).filter { $0.requestIdentifier.hasPrefix("spaced-") }
            let lateness = Percentiles(history.compactMap { entry in entry.dueDate.map { entry.actedAt.timeIntervalSince($0) } })
            let baseline = Percentiles(try await bareSleepLateness(offsets: offsets))
            row(
                "lateness p50 / p99, \(Format.count(pendingCount)) pending, 1 worker (to the recorded fire)",
                "\(Format.duration(lateness.p50)) / \(Format.duration(lateness.p99))",
                "bare sleep-until \(Format.duration(baseline.p50)) / \(Format.duration(baseline.p99))",
                String(format: "x%.1f / x%.1f", lateness.p50 / baseline.p50, lateness.p99 / baseline.p99))
        }
        await side.stop()
        print("ServerBenchmark: | figure | value | baseline (same run) | ratio |")
        print("ServerBenchmark: |---|---|---|---|")
        for (figure, value, baseline, ratio) in rows { print("ServerBenchmark: | \(figure) | \(value) | \(baseline) | \(ratio) |") }
    }

    /// Content with a title (the endpoint's record of each request) and a body.
    static func content(_ title: String, _ body: String = "") -> NotificationPayload {
        var content = NotificationPayload()
        content.title = title
        content.body = body
        return content
    }

    /// Seconds one raw `INSERT ... SELECT generate_series` of `rows` rows takes into a copy of `pending` (its
    /// indexes included), the baseline of the enqueue figure.
    static func rawInsert(_ configuration: PostgresClient.Configuration, rows: Int, devices: Int) async throws -> Double {
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "ServerBenchmark"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query("CREATE TABLE bench_pending (LIKE pending INCLUDING ALL)")
            let spec = ByteBuffer(
                bytes: try StoredJSON.encode(RequestSpec(identifier: "x", content: content("Bench", "far away"), trigger: nil)))
            let now = Date().timeIntervalSince1970
            let started = ContinuousClock.now
            try await client.query(
                """
                INSERT INTO bench_pending (app, identifier, spec, added_at, next_fire, floating)
                SELECT 'device:bench-' || (i % \(devices)), 'far-' || i, \(spec), \(now), \(now + 30 * 86_400) + i, false
                FROM generate_series(0, \(rows - 1)) AS i
                """)
            let seconds = (ContinuousClock.now - started).seconds
            try await client.query("DROP TABLE bench_pending")
            return seconds
        }
    }

    /// Runs `count` workers (each its own store, pool and APNs client) on the database while `body` runs.
    static func withWorkers<T: Sendable>(
        _ count: Int, configuration: PostgresClient.Configuration, side: DeviceSide,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        let stores = (0..<count).map { PostgresNotificationStore(configuration: configuration, owner: "bench-\($0)") }
        let clients = try (0..<count).map { _ in try side.client() }
        var engine = EngineConfiguration()
        engine.claimBatch = ServerWorker.claimBatch
        let workers = zip(stores, clients).map { store, client in
            ServerWorker(store: store, development: client, production: client, configuration: engine)
        }
        let pools = stores.map { store in Task { await store.run() } }
        let running = workers.map { worker in Task { await worker.run() } }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        for task in running { task.cancel() }
        for task in running { await task.value }
        for pool in pools { pool.cancel() }
        for pool in pools { await pool.value }
        for client in clients { try? await client.shutdown() }
        return try result.get()
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
