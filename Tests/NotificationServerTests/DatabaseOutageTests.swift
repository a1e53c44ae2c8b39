import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import PostgresTestServer
import PushTestSupport
import Testing

/// A worker whose PostgreSQL server stops at once (as a crash would) while its sends wait for APNs, and comes back:
/// calls fail (at once on a connection the server closed, or after the store's connection wait) instead of hanging,
/// nothing scheduled is lost, and a fire whose recording failed is sent once more. On a server of the test's own, since
/// the shared one serves every other test.
@Suite("A server worker when PostgreSQL stops and comes back", .timeLimit(.minutes(5)))
struct DatabaseOutageTests {
    static let lease: TimeInterval = 30
    /// The store's connection wait: short, so that the six recordings that fail one after another take seconds (6 s:
    /// with 3 s, a fresh clone's whole suite once had the store's first connection come later than that).
    static let connectionWait: Duration = .seconds(6)

    @Test("PostgreSQL stopped while a worker's sends wait for APNs: calls fail within the connection wait; once it is back each fire whose recording failed is sent once more, and every fire is recorded once")
    func serverStopsUnderAWorker() async throws {
        // Durable, as a production server is: the stop below is a crash, and a server that acknowledges commits
        // before flushing them (the shared test server) loses the last ones in a crash.
        let server = try await PostgresTestServer.dedicated(durable: true)
        defer { server.remove() }
        let configuration = PostgresClient.Configuration(
            unixSocketPath: server.socketPath, username: server.user, password: nil,
            database: try await server.makeDatabase())
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        // Migrated first by a store with a long wait: the schema's creation on a fresh durable server is the slowest
        // step, and is not what this test measures.
        try await PostgresNotificationStore.withStore(
            configuration: configuration, owner: "migration", connectionWait: .seconds(60)) { _ in }
        try await PostgresNotificationStore.withStore(
            configuration: configuration, owner: "worker-a", connectionWait: Self.connectionWait
        ) { store in
            let client = try side.client { $0.requestTimeout = 600 }  // the sends wait as long as the test says
            let worker = ServerWorker(
                store: store, development: client, production: client, clock: clock,
                configuration: EngineConfiguration(claimLease: Self.lease))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await worker.run(listening: true) {} }
                defer { group.cancelAll() }
                try await Self.outage(server: server, worker: worker, side: side, clock: clock)
            }
            try await client.shutdown()
        }
        await side.stop()
    }

    /// Six fires sent with APNs's answers held; the server stops; APNs accepts them and recording them fails; the
    /// server starts again; after the lease they are sent and recorded.
    static func outage(
        server: PostgresTestServer, worker: ServerWorker, side: DeviceSide, clock: ManualNotificationClock
    ) async throws {
        // One fire per device: a device's fires are sent one after another, so all six are in flight at once.
        let titles = (1...6).map { "fire-\($0)" }
        for (index, title) in titles.enumerated() {
            try await worker.devices.register(registration("d\(index + 1)", zone: "Europe/Paris"))
            try await worker.devices.schedule(spec(title, .timeInterval(60, repeats: false)), forDevice: "d\(index + 1)")
        }
        try #require(await eventually { clock.sleeperCount >= 1 })
        side.holdAnswers()
        clock.advance(by: 60)
        try #require(await eventually { Set(side.arrived) == Set(titles) }, "arrived: \(side.arrived)")

        try await server.stop()
        // A call fails at once when it got a connection the server had just closed (PostgresNIO would never answer
        // it), or once it waited the connection wait for a new one: not after the minute PostgresNIO's pool waits.
        let started = ContinuousClock.now
        let refusal = await Self.error(within: 45) {
            try await worker.devices.schedule(spec("during", .timeInterval(60, repeats: false)), forDevice: "d1")
        }
        let waited = ContinuousClock.now - started
        #expect((refusal as? EngineError)?.code == .storeFailure, "\(String(describing: refusal)) after \(waited)")
        #expect(waited < connectionWait + .seconds(10), "waited \(waited)")

        // APNs accepts the six; recording each fails, and the worker stops renewing its claim.
        side.releaseAnswers()
        #expect(await eventually { side.received.filter { $0.status == 200 }.count == titles.count })
        #expect(await eventually { !worker.scheduler.claims.isRenewing })

        try await server.start()
        // Once the pool connects again, the claims' lease ends: the worker sends each fire once more and records it.
        #expect(await eventually { (try? await worker.store.pendingCount()) == titles.count })
        clock.advance(by: lease + 1)
        #expect(await eventually { await Self.allRecorded(titles.count, in: worker.store) })
        let arrivals = Dictionary(grouping: side.received.filter { $0.status == 200 }, by: \.title).mapValues(\.count)
        #expect(arrivals == Dictionary(uniqueKeysWithValues: titles.map { ($0, 2) }), "\(arrivals)")
        // Working again: a new request is scheduled and delivered.
        try await worker.devices.schedule(spec("after", .timeInterval(60, repeats: false)), forDevice: "d2")
        clock.advance(by: 60)
        #expect(await eventually { side.received.contains { $0.title == "after" && $0.status == 200 } })
    }

    /// Whether nothing is pending and the history has `count` entries.
    static func allRecorded(_ count: Int, in store: PostgresNotificationStore) async -> Bool {
        guard (try? await store.pendingCount()) == 0 else { return false }
        return (try? await store.history(appID: nil, limit: 100).count) == count
    }

    /// What `body` throws within `seconds` (`nil` when it returns, or is still waiting then).
    static func error(within seconds: Double, _ body: @escaping @Sendable () async throws -> Void) async -> (any Error)?
    {
        await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do {
                    try await body()
                    return nil
                } catch { return error }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
