import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import PostgresTestServer
import Testing

/// The configuration of a new, empty database on the test process's PostgreSQL server.
func freshDatabase() async throws -> PostgresClient.Configuration {
    let server = try await PostgresTestServer.shared()
    return PostgresClient.Configuration(
        unixSocketPath: server.socketPath, username: server.user, password: nil,
        database: try await server.makeDatabase())
}

/// Runs `body` with a plain client on `configuration`'s database, for looking at rows behind the store's back.
@discardableResult
func withClient<T: Sendable>(
    _ configuration: PostgresClient.Configuration, _ body: (PostgresClient) async throws -> T
) async throws -> T {
    let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "test"))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

let start = Date(timeIntervalSince1970: 1_767_603_600)

func request(_ id: String, fireIn seconds: TimeInterval?, app: String = "com.example.app") -> PendingRequest {
    var content = NotificationPayload()
    content.title = id
    return PendingRequest(
        appID: app,
        spec: RequestSpec(identifier: id, content: content, trigger: .timeInterval(seconds ?? 1, repeats: false)),
        addedAt: start, nextFireDate: seconds.map { start.addingTimeInterval($0) })
}

@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("two workers claiming the same due set at the same time never both get a request")
    func concurrentClaims() async throws {
        let configuration = try await freshDatabase()
        let count = 2_000
        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-a") { a in
            try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-b") { b in
                // Several apps, due at many instants, so both workers' claims interleave over the whole set.
                _ = try await a.insertPending(
                    batch: (0..<count).map { request("r\($0)", fireIn: Double($0 % 50), app: "com.example.\($0 % 7)") },
                    cap: nil, at: start)
                let due = start.addingTimeInterval(60)
                // Each worker claims in small batches, as fast as it can, until nothing is left; several tasks per
                // worker, as a worker's pool has several connections.
                func drain(_ store: PostgresNotificationStore) async throws -> [Int64] {
                    try await withThrowingTaskGroup(of: [Int64].self) { group in
                        for _ in 0..<4 {
                            group.addTask {
                                var mine: [Int64] = []
                                while true {
                                    let claimed = try await store.claimDue(
                                        at: due, leaseUntil: due.addingTimeInterval(600), limit: 16, appID: nil)
                                    if claimed.isEmpty { return mine }
                                    mine += claimed.map(\.revision)
                                }
                            }
                        }
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                }
                async let claimedByA = drain(a)
                async let claimedByB = drain(b)
                let (byA, byB) = try await (claimedByA, claimedByB)
                #expect(Set(byA).count == byA.count)
                #expect(Set(byB).count == byB.count)
                #expect(Set(byA).isDisjoint(with: byB))
                #expect(byA.count + byB.count == count)
                // Both took part (the claims really ran side by side).
                #expect(!byA.isEmpty && !byB.isEmpty)
                // Each worker holds exactly its own claims.
                #expect(try await a.claimedFireDates(revisions: byA + byB).count == byA.count)
                #expect(try await b.claimedFireDates(revisions: byA + byB).count == byB.count)
                // Releasing another worker's claims does nothing.
                try await a.releaseClaims(revisions: byB)
                #expect(try await b.claimedFireDates(revisions: byB).count == byB.count)
            }
        }
    }

    @Test("a stopped worker's claims are not released early, and another worker takes them when their lease ends")
    func leaseTakeover() async throws {
        let configuration = try await freshDatabase()
        let due = start.addingTimeInterval(10)
        let claimedByA = try await PostgresNotificationStore.withStore(configuration: configuration, owner: "a") { a in
            _ = try await a.insertPending(request("r", fireIn: 10), cap: nil, at: start)
            return try await a.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10).map(\.revision)
        }
        #expect(claimedByA.count == 1)
        // Worker a is gone (its pool closed) without completing or releasing.
        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "b") { b in
            // Whether a worker elsewhere still runs cannot be told: nothing is released before the lease ends.
            #expect(try await b.releaseAbandonedClaims() == 0)
            #expect(
                try await b.claimDue(at: due.addingTimeInterval(59), leaseUntil: due.addingTimeInterval(120), limit: 10)
                    .isEmpty)
            #expect(try await b.nextWakeDate() == due.addingTimeInterval(60))
            let taken = try await b.claimDue(
                at: due.addingTimeInterval(60), leaseUntil: due.addingTimeInterval(120), limit: 10)
            #expect(taken.map(\.revision) == claimedByA)
            #expect(try await b.claimedFireDates(revisions: claimedByA) == [claimedByA[0]: due])
        }
    }

    @Test(
        "a slow worker that outlived its lease and the worker that took the fire over record it once, whichever completes first",
        arguments: [true, false], [true, false])
    func lateCompletionRecordsOnce(slowFirst: Bool, batched: Bool) async throws {
        let configuration = try await freshDatabase()
        let due = start.addingTimeInterval(10)
        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "slow") { slow in
            try await PostgresNotificationStore.withStore(configuration: configuration, owner: "fast") { fast in
                _ = try await slow.insertPending(request("r", fireIn: 10), cap: nil, at: start)
                let mine = try #require(
                    try await slow.claimDue(at: due, leaseUntil: due.addingTimeInterval(8), limit: 10).first)
                // The slow worker is still sending when its lease ends; the other takes the fire over.
                let theirs = try #require(
                    try await fast.claimDue(at: due.addingTimeInterval(9), leaseUntil: due.addingTimeInterval(20), limit: 10)
                        .first)
                #expect(theirs.revision == mine.revision)
                func record(_ store: PostgresNotificationStore, _ request: PendingRequest, at seconds: Double) async throws
                    -> Int64
                {
                    let history = HistoryEntry(
                        appID: request.appID, requestIdentifier: request.spec.identifier, title: "r", dueDate: due,
                        actedAt: due.addingTimeInterval(seconds), presenter: "apns", presentation: [.banner],
                        outcome: .delivered)
                    guard batched else {
                        return try await store.completeFire(
                            request, nextFireDate: nil, delivered: nil, history: history, badge: nil)
                    }
                    let fire = FireCompletion(
                        request: request, nextFireDate: nil, delivered: nil, history: history, badge: nil)
                    return try #require(try await store.completeFires([fire]).first)
                }
                if slowFirst {
                    #expect(try await record(slow, mine, at: 9.5) == 0, "the fire is the other worker's now")
                    #expect(try await record(fast, theirs, at: 10) > 0)
                } else {
                    let recorded = try await record(fast, theirs, at: 10)
                    #expect(try await record(slow, mine, at: 11) == recorded, "already recorded: the same entry")
                }
                let history = try await fast.history(appID: nil, limit: 10)
                #expect(history.count == 1 && history.first?.outcome == .delivered)
                #expect(try await fast.pendingCount() == 0)
            }
        }
    }

    @Test("a renewal after another worker took the expired claim over renews nothing for that row, and the new owner's does")
    func renewalAfterTakeover() async throws {
        let configuration = try await freshDatabase()
        let due = start.addingTimeInterval(10)
        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "slow") { slow in
            try await PostgresNotificationStore.withStore(configuration: configuration, owner: "fast") { fast in
                _ = try await slow.insertPending(request("taken", fireIn: 10), cap: nil, at: start)
                _ = try await slow.insertPending(request("kept", fireIn: 10), cap: nil, at: start)
                let mine = try await slow.claimDue(at: due, leaseUntil: due.addingTimeInterval(8), limit: 10)
                let revision = Dictionary(uniqueKeysWithValues: mine.map { ($0.identifier, $0.revision) })
                // The slow worker could not renew in time; its lease ended and the other worker took one row over.
                let theirs = try await fast.claimDue(
                    at: due.addingTimeInterval(9), leaseUntil: due.addingTimeInterval(20), limit: 1)
                #expect(theirs.map(\.revision).count == 1)
                let taken = try #require(theirs.first?.revision)
                let kept = try #require(revision.values.first { $0 != taken })
                #expect(
                    try await slow.renewClaims(
                        revisions: Array(revision.values), leaseUntil: due.addingTimeInterval(40)) == [kept])
                // The taken row keeps the other worker's lease; only its owner renews it.
                #expect(
                    try await fast.renewClaims(revisions: [taken, kept], leaseUntil: due.addingTimeInterval(50)) == [taken])
                #expect(try await fast.claimedFireDates(revisions: [taken, kept]) == [taken: due])
                #expect(try await slow.claimedFireDates(revisions: [taken, kept]) == [kept: due])
                #expect(try await fast.nextWakeDate() == due.addingTimeInterval(40))
            }
        }
    }

    @Test("workers migrating the same new database at the same time migrate it once")
    func concurrentMigrations() async throws {
        let configuration = try await freshDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    try await PostgresNotificationStore.withStore(configuration: configuration, owner: "w\(worker)") {
                        store in
                        _ = try await store.insertPending(request("r\(worker)", fireIn: 10), cap: nil, at: start)
                    }
                }
            }
            try await group.waitForAll()
        }
        let versions = try await withClient(configuration) { client in
            try await client.query("SELECT version FROM schema_version ORDER BY version").decode(Int.self)
                .reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(versions == Array(1...9))
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let count = try await store.pendingCount()
            #expect(count == 4)
        }
    }

    @Test("a database migrated by a newer version is refused with the versions named")
    func newerSchema() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { _ in }
        try await withClient(configuration) { client in
            try await client.query("INSERT INTO schema_version (version, name) VALUES (99, 'future')")
        }
        await #expect(throws: PostgresNotificationStore.SchemaError.self) {
            try await PostgresNotificationStore.withStore(configuration: configuration) { _ in }
        }
    }

    @Test("one unreadable row hides nothing: listing, claiming and removing go on around it")
    func unreadableRow() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            for id in ["a", "poison", "b"] {
                _ = try await store.insertPending(request(id, fireIn: 60), cap: nil, at: start)
            }
            try await withClient(configuration) { client in
                try await client.query("UPDATE pending SET spec = \(Data("{".utf8)) WHERE identifier = 'poison'")
            }
            #expect(try await store.pendingRequests(appID: "com.example.app").map(\.identifier) == ["a", "b"])
            let claimed = try await store.claimDue(
                at: start.addingTimeInterval(61), leaseUntil: start.addingTimeInterval(120), limit: 10, appID: nil)
            #expect(claimed.map(\.identifier).sorted() == ["a", "b"])
            #expect(
                try await store.removePending(appID: "com.example.app", identifiers: nil).map(\.identifier).sorted()
                    == ["a", "b"])
            #expect(try await store.pendingCount() == 0)
        }
    }

    @Test("two workers adding to one app at the same time keep the store's pending cap")
    func concurrentCap() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { a in
            try await PostgresNotificationStore.withStore(configuration: configuration) { b in
                try await a.setPolicy(StorePolicy(pendingCap: .limit(10)))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, store) in [a, b].enumerated() {
                        group.addTask {
                            for n in 0..<40 {
                                _ = try await store.insertPending(
                                    request("w\(index)-\(n)", fireIn: Double(n)), cap: nil, at: start)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await a.pendingCount() == 10)
                #expect(try await a.history(appID: nil, limit: 1_000).filter { $0.outcome == .discarded }.count == 70)
            }
        }
    }

    @Test(
        "a batch replacing requests by identifier stays an index lookup when the table's statistics say it is empty",
        .timeLimit(.minutes(5)))
    func batchReplaceWithoutStatistics() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { _ in
            // 100,000 rows over 1,000 apps, then the statistics an autovacuum leaves when it counts the table while
            // a large insert is not committed: no column statistics, zero rows over the table's pages. Any statement
            // over 5 s fails (a scan of the whole table per replaced pair took minutes here).
            try await withClient(configuration) { client in
                try await client.query(
                    """
                    INSERT INTO pending (app, identifier, spec, added_at, next_fire, floating)
                    SELECT 'app-' || (i % 1000), 'fill-' || i, '\\x7b7d'::bytea, 0, 2e9 + i, false
                    FROM generate_series(0, 99999) AS i
                    """)
                try await client.query("DELETE FROM pg_statistic WHERE starelid = 'pending'::regclass")
                try await client.query(
                    """
                    UPDATE pg_class SET reltuples = 0, relpages = pg_relation_size('pending') / 8192
                    WHERE oid = 'pending'::regclass
                    """)
                let database = configuration.database ?? ""
                try await client.query(
                    PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(database)\" SET statement_timeout = '5s'"))
            }
        }
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let batch = (0..<300).map { request("fill-\($0)", fireIn: 60, app: "app-\($0 % 1000)") }
            #expect(try await store.insertPending(batch: batch, cap: nil, at: start).isEmpty)
            #expect(try await store.pendingCount() == 100_000)
            let replaced = try await store.pendingRequests(appID: "app-7").first { $0.identifier == "fill-7" }
            #expect(replaced?.nextFireDate == start.addingTimeInterval(60))
        }
    }
}
