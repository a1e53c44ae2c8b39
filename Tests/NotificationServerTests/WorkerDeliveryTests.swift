import Foundation
import NotificationAPNsProvider
@testable import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import PushTestSupport
import Synchronization
import Testing

@Suite("Server workers delivering through APNs", .timeLimit(.minutes(5)))
struct WorkerDeliveryTests {
    /// Runs `body` with two workers (two store instances, two pools, two APNs clients) on one new database, on one
    /// manual clock, their loops running (with `LISTEN` when `listening`), and stops them afterwards.
    func withTwoWorkers(
        side: DeviceSide, clock: ManualNotificationClock, running: (a: Bool, b: Bool) = (true, true),
        listening: Bool = true, configuration engine: EngineConfiguration = EngineConfiguration(),
        adjustClient: @escaping (inout APNsClientConfiguration) -> Void = { _ in },
        _ body: (ServerWorker, ServerWorker, Listening) async throws -> Void
    ) async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-a") { storeA in
            try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-b") { storeB in
                let clientA = try side.client(adjust: adjustClient)
                let clientB = try side.client(adjust: adjustClient)
                let a = ServerWorker(
                    store: storeA, development: clientA, production: clientA, clock: clock, configuration: engine)
                let b = ServerWorker(
                    store: storeB, development: clientB, production: clientB, clock: clock, configuration: engine)
                let ready = Listening()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    if running.a { group.addTask { await a.run(listening: listening) { ready.mark("a") } } }
                    if running.b { group.addTask { await b.run(listening: listening) { ready.mark("b") } } }
                    defer { group.cancelAll() }
                    try await body(a, b, ready)
                }
                try await clientA.shutdown()
                try await clientB.shutdown()
            }
        }
    }

    /// Which workers' `LISTEN` is in effect.
    final class Listening: Sendable {
        private let names = Mutex<Set<String>>([])
        func mark(_ name: String) { _ = names.withLock { $0.insert(name) } }
        func contains(_ name: String) -> Bool { names.withLock { $0.contains(name) } }
    }

    @Test("two workers on one database: every fire arrives once; a 410 deactivates the device and drops its pending requests; a 400 is a dead letter")
    func twoWorkers() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        let gone = registration("gone", zone: "Europe/Paris")
        var refused = registration("refused", zone: "Europe/Paris")
        refused.topic = "com.example.refused"
        side.answer(.unregistered, token: gone.token)
        side.answer(.badTopic, topic: refused.topic)
        try await withTwoWorkers(side: side, clock: clock) { a, b, _ in
            let ok = (0..<12).map { registration("d\($0)", zone: $0 % 2 == 0 ? "Europe/Paris" : "America/New_York") }
            for device in ok + [gone, refused] { try await a.devices.register(device) }
            // Every device gets four requests, due 1 to 4 minutes from now, half added through each worker.
            for (index, device) in ok.enumerated() {
                let api = index % 2 == 0 ? a.devices : b.devices
                for minute in 1...4 {
                    try await api.schedule(
                        spec("\(device.id)-m\(minute)", .timeInterval(Double(60 * minute), repeats: false)),
                        forDevice: device.id)
                }
            }
            try await a.devices.schedule(spec("gone-now", .timeInterval(60, repeats: false)), forDevice: "gone")
            try await a.devices.schedule(spec("gone-later", .timeInterval(3_600, repeats: false)), forDevice: "gone")
            try await b.devices.schedule(spec("refused-now", .timeInterval(60, repeats: false)), forDevice: "refused")

            for minute in 1...4 {
                clock.set(to: instant("2026-01-05T07:00:00Z").addingTimeInterval(Double(60 * minute)))
                let expected = ok.count * minute
                let arrived = await eventually { side.received.filter { $0.status == 200 }.count >= expected }
                #expect(arrived, "minute \(minute): \(side.received.filter { $0.status == 200 }.count) of \(expected)")
                // The clock moves a whole lease (60 s) at a time: it moves on only once every fire is recorded, or
                // their claims would end and another worker deliver them again (at least once, by design).
                let recorded = try await eventually {
                    let counts = try await a.store.pendingCounts()
                    return ok.allSatisfy { counts[Device.appID(forDevice: $0.id)] ?? 0 == 4 - minute }
                        && counts["device:refused"] == nil && counts["device:gone"] == nil
                }
                let left = try await a.store.pendingCounts()
                #expect(recorded, "minute \(minute): \(left)")
            }
            // Everything is recorded: nothing pending (the 410 removed "gone-later").
            #expect(try await eventually { try await a.store.pendingCount() == 0 })

            let delivered = side.received.filter { $0.status == 200 }
            #expect(delivered.count == ok.count * 4)
            #expect(Set(delivered.map(\.apnsID)).count == delivered.count, "a fire arrived twice")
            #expect(Set(delivered.map(\.title)) == Set(ok.flatMap { device in (1...4).map { "\(device.id)-m\($0)" } }))
            // The tokens they went to are the devices' own.
            let tokens = Dictionary(uniqueKeysWithValues: ok.map { ($0.id, $0.token) })
            #expect(delivered.allSatisfy { tokens[String($0.title.split(separator: "-")[0])] == $0.token })

            // 410: sent once, the device inactive, its later request gone, and no more sends to it.
            #expect(side.received.filter { $0.token == gone.token }.map(\.title) == ["gone-now"])
            let goneDevice = try #require(try await b.devices.device(id: "gone"))
            #expect(!goneDevice.isActive)
            #expect(try await a.devices.pendingRequests(forDevice: "gone").isEmpty)
            let inactive = await #expect(throws: DeviceError.self) {
                try await a.devices.schedule(spec("again", nil), forDevice: "gone")
            }
            #expect(inactive?.code == .inactiveDevice)

            // 400: a dead letter with the reason, sent once.
            let letters = try await a.store.deadLetters()
            #expect(letters.map(\.deviceID) == ["refused"])
            #expect(letters.first?.reason == "BadTopic" && letters.first?.status == 400)
            #expect(letters.first?.requestIdentifier == "refused-now")
            #expect(side.received.filter { $0.topic == refused.topic }.count == 1)
            let history = try await a.store.history(appID: "device:refused", limit: 10)
            #expect(history.map(\.outcome) == [.skipped])

            // The figures add up to what the endpoint saw: the workers' answers together, and the database's.
            let figures = [a, b].map { $0.presenter.metrics.snapshot(at: clock.now) }
            let answers = figures.reduce(into: [String: Int]()) { total, worker in
                total.merge(worker.answers, uniquingKeysWith: +)
            }
            #expect(answers == ["Success": ok.count * 4, "Unregistered": 1, "BadTopic": 1])
            // Each fire was sent at its due instant on the manual clock: no lateness.
            #expect(figures.compactMap(\.latenessP99).allSatisfy { $0 == 0 })
            let cluster = try await a.store.clusterStatistics(at: clock.now, window: 600)
            #expect(cluster.pending == 0 && cluster.dueBacklog == 0 && cluster.claimed == 0)
            #expect(cluster.activeDevices == ok.count + 1 && cluster.inactiveDevices == 1)
            #expect(cluster.outcomes["delivered"] == ok.count * 4)
            #expect(cluster.outcomes["skipped"] == 2)
            #expect(cluster.deadLetters == ["BadTopic": 1])
            #expect(cluster.latenessP50 == 0 && cluster.latenessP99 == 0)
            #expect(cluster.deliveriesPerSecond == Double(ok.count * 4) / 600)
        }
        await side.stop()
    }

    @Test("a request's APNs options become its headers: expiration, priority, collapse id; without them the worker chooses")
    func apnsOptions() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        try await withTwoWorkers(side: side, clock: clock, running: (true, false)) { a, _, _ in
            try await a.devices.register(registration("d1", zone: "Europe/Paris"))
            var given = spec("given", .timeInterval(60, repeats: false))
            given.apns = APNsOptions(expiration: instant("2026-01-05T08:00:00Z"), priority: 5, collapseID: "score-42")
            try await a.devices.schedule(given, forDevice: "d1")
            try await a.devices.schedule(spec("plain", .timeInterval(60, repeats: false)), forDevice: "d1")
            clock.advance(by: 60)
            #expect(await eventually { side.received.count >= 2 })
            let byTitle = Dictionary(uniqueKeysWithValues: side.received.map { ($0.title, $0) })
            #expect(byTitle["given"]?.priority == "5")
            #expect(byTitle["given"]?.expiration == "\(Int(instant("2026-01-05T08:00:00Z").timeIntervalSince1970))")
            #expect(byTitle["given"]?.collapseID == "score-42")
            #expect(byTitle["plain"]?.priority == "10")
            #expect(byTitle["plain"]?.expiration == "")
            #expect(byTitle["plain"]?.collapseID == "plain")
        }
        await side.stop()
    }

    @Test("localizedUserNotificationString values reach the device as loc-key and loc-args, unresolved by the worker")
    func localizationKeys() async throws {
        var content = NotificationPayload()
        content.title = LocalizableString(key: "CLASS_TITLE").encoded
        content.body = LocalizableString(key: "CLASS_BODY", arguments: [.string("B12"), .int(10)]).encoded
        content.subtitle = "Room " + LocalizableString(key: "ROOM").encoded
        let payload = try APNsPayloadEncoder.payload(for: content)
        let alert = try #require(
            ((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["aps"] as? [String: Any])?["alert"]
                as? [String: Any])
        #expect(alert["title-loc-key"] as? String == "CLASS_TITLE" && alert["title"] == nil)
        #expect(alert["loc-key"] as? String == "CLASS_BODY")
        #expect(alert["loc-args"] as? [String] == ["B12", "10"])
        #expect(alert["subtitle"] as? String == "Room ROOM", "a mixed text carries the key in place of the value")
        #expect(ServerWorker.localizesOnDevice)

        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        try await withTwoWorkers(side: side, clock: clock, running: (true, false)) { a, _, _ in
            try await a.devices.register(registration("d1", zone: "Europe/Paris"))
            try await a.devices.schedule(
                RequestSpec(identifier: "class", content: content, trigger: .timeInterval(60, repeats: false)),
                forDevice: "d1")
            clock.advance(by: 60)
            #expect(await eventually { side.received.count >= 1 })
            // The endpoint records the alert's title: none was sent, only its key.
            #expect(side.received.first?.title == "")
        }
        await side.stop()
    }

    @Test("a worker that gives up (503 on every attempt) leaves the claim; after the lease it is sent again with the same apns-id")
    func gaveUpIsRetriedAfterTheLease() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let start = instant("2026-01-05T07:00:00Z")
        let clock = ManualNotificationClock(now: start)
        let flaky = registration("flaky", zone: "Europe/Paris")
        side.answer(.serviceUnavailable, token: flaky.token)
        var engine = EngineConfiguration()
        engine.claimLease = 60
        try await withTwoWorkers(
            side: side, clock: clock, running: (true, false), configuration: engine,
            adjustClient: { client in
                // The client's backoff waits on the system clock: two attempts, milliseconds apart.
                client.retryPolicy.maximumAttempts = 2
                client.retryPolicy.initialDelay = 0.01
                client.retryPolicy.maximumDelay = 0.02
            }
        ) { a, _, _ in
            try await a.devices.register(flaky)
            try await a.devices.schedule(spec("flaky-1", .timeInterval(10, repeats: false)), forDevice: "flaky")
            clock.set(to: start.addingTimeInterval(10))
            #expect(await eventually { side.received.count == 2 })
            // The worker has given up once it no longer renews the claim. Moving the clock before that would wake the
            // renewal due a third of a lease after the claim, which would extend the lease past the instant below.
            #expect(await eventually { !a.scheduler.claims.isRenewing })
            // Not recorded: still pending, claimed until the lease ends.
            #expect(try await a.devices.pendingRequests(forDevice: "flaky").map(\.identifier) == ["flaky-1"])
            #expect(try await a.store.history(appID: "device:flaky", limit: 10).isEmpty)
            side.answer(nil, token: flaky.token)
            clock.set(to: start.addingTimeInterval(10 + 61))
            #expect(await eventually { side.received.contains { $0.status == 200 } })
            #expect(try await eventually { try await a.store.pendingCount() == 0 })
            let attempts = side.received
            #expect(attempts.map(\.status) == [503, 503, 200])
            #expect(Set(attempts.map(\.apnsID)).count == 1, "one fire, one apns-id: \(attempts.map(\.apnsID))")
            #expect(try await a.store.history(appID: "device:flaky", limit: 10).map(\.outcome) == [.delivered])
        }
        await side.stop()
    }
}
