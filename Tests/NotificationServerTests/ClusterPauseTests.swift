import Foundation
import Logging
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresNIO
import PostgresTestServer
import PushTestSupport
import Testing
import TestPrograms

/// A live worker frozen (SIGSTOP) past its claims' lease while it holds them -- a long GC-like pause, a suspended VM, a
/// network cut that heals -- and then thawed: the other worker takes its claims over when the lease ends, and the
/// thawed one goes on without sending anything twice beyond what it held (docs/server-mode.md, "What a crash costs").
///
/// The same cluster as ``ClusterCrashTests`` (real `unotifyd --server` processes, one database, our APNs endpoint
/// answering after 30 ms), with two workers. Unlike a kill, the frozen worker comes back: it must notice that its
/// claims were taken over, and its late recordings must not record a fire twice.
@Suite("A cluster of unotifyd --server processes with one frozen past its lease", .timeLimit(.minutes(5)))
struct ClusterPauseTests {
    static let deviceCount = 20
    static let requestsPerDevice = 10

    @Test("200 fires, one of 2 workers frozen past its lease with claims held: every fire arrives and is recorded once; repeats only of the claims it held")
    func freezeOneWorkerPastItsLease() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        side.delayAnswers(by: .milliseconds(30))
        let server = try await PostgresTestServer.shared()
        let database = try await server.makeDatabase()
        let url = "postgres://\(server.user)@/\(database)?host=\(server.socketDirectory)"
        let crash = ClusterCrashTests()
        let workers = try (0..<2).map { try crash.start(index: $0, url: url, side: side) }
        defer {
            for worker in workers where worker.process.isRunning {
                kill(worker.process.processIdentifier, SIGCONT)
                kill(worker.process.processIdentifier, SIGKILL)
            }
        }
        let owners = try await ClusterCrashTests.owners(of: workers)

        let configuration = try PostgresNotificationStore.configuration(databaseURL: url)
        let sql = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "ClusterPauseTests"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await sql.run() }
            defer { group.cancelAll() }
            try await PostgresNotificationStore.withStore(configuration: configuration) { store in
                let expected = try await ClusterCrashTests.scheduleBurst(
                    store, prefix: "pause", devices: Self.deviceCount, perDevice: Self.requestsPerDevice)
                // Once a quarter arrived, the worker holding the most claims (at least 3, counted again once it is
                // stopped) is frozen.
                let stopped = try await ClusterCrashTests.stopBusiest(workers, owners: owners, sql: sql) {
                    side.received.count >= expected.count / 4
                }
                let (index, owner) = try #require(stopped, "no worker held 3 claims once a quarter had arrived")
                let held = try await ClusterCrashTests.claimedIdentifiers(sql, owner: owner)
                // Frozen until every claim it held has passed to the other worker (after the lease, 15 s).
                #expect(try await eventually(within: 120) {
                    try await ClusterCrashTests.claimedIdentifiers(sql, owner: owner).isEmpty
                }, "\(crash.logs(workers))")
                kill(workers[index].process.processIdentifier, SIGCONT)

                #expect(await eventually(within: 120) {
                    Set(side.received.filter { $0.status == 200 }.map(\.title)) == expected
                }, "\(crash.logs(workers))")
                #expect(try await eventually(within: 120) { try await store.pendingCount() == 0 })
                let delivered = try await store.history(appID: nil, limit: 10_000).filter { $0.outcome == .delivered }
                #expect(delivered.count == expected.count, "each fire recorded once")
                #expect(Set(delivered.map(\.requestIdentifier)) == expected)

                let received = side.received
                let byTitle = Dictionary(grouping: received, by: \.title)
                let repeated = byTitle.filter { $0.value.count > 1 }
                #expect(repeated.values.allSatisfy { $0.count == 2 }, "a fire arrived more than twice")
                #expect(Set(repeated.keys).isSubset(of: held), "a repeat of a fire the frozen worker did not hold")
                #expect(byTitle.values.allSatisfy { Set($0.map(\.apnsID)).count == 1 }, "a repeat with another apns-id")
                let noticed = ClusterCrashTests.text(workers[index].log).contains("taken over by another engine")
                print(
                    "ClusterPauseTests: froze worker \(index) holding \(held.count) claims; \(received.count) arrivals "
                        + "for \(expected.count) fires, \(repeated.count) repeated; it logged the takeover: \(noticed)")
            }
        }
        #expect(workers.allSatisfy { $0.process.isRunning }, "the thawed worker went on running")
        for worker in workers { kill(worker.process.processIdentifier, SIGTERM) }
        await ClusterCrashTests.waitForExit(workers.map(\.process))
        #expect(workers.map(\.process.terminationStatus) == [0, 0], "\(crash.logs(workers))")
        await side.stop()
    }
}
