import Foundation
import Logging
import NotificationEngine
@testable import NotificationStorePostgres
import PostgresNIO
import Synchronization
import Testing

/// A store call that has its connection is answered even when PostgreSQL never answers it: when the connection
/// closes under it (PostgresNIO 1.33 drops a query written to a connection whose channel has closed, so the call
/// would wait forever), and when the server keeps it past the call deadline.
@Suite("PostgreSQL store's calls on a lost connection", .timeLimit(.minutes(2)))
struct ConnectionLossTests {
    static let logger = Logger(label: "test")

    @Test("a call whose backend is terminated, and which then queries the closed connection, fails with storeFailure at once; the store carries on")
    func connectionClosedUnderACall() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration, callDeadline: nil) { store in
            try await withClient(configuration) { admin in
                let started = ContinuousClock.now
                let error = await #expect(throws: EngineError.self) {
                    try await store.lease.run(deadline: nil) { connection in
                        try await Self.queryAfterTermination(connection, by: admin)
                    }
                }
                let waited = ContinuousClock.now - started
                #expect(error?.code == .storeFailure)
                #expect(error?.message.contains("closed during the call") == true, "\(String(describing: error))")
                #expect(waited < .seconds(20), "waited \(waited)")
                // The pool replaces the connection: the next calls work.
                #expect(try await store.pendingCount() == 0)
                try await store.migrate()
            }
        }
    }

    @Test("a call the server keeps past the call deadline fails with storeFailure and its connection is closed; the store carries on")
    func deadline() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let connection = Mutex<PostgresConnection?>(nil)
            let started = ContinuousClock.now
            let error = await #expect(throws: EngineError.self) {
                try await store.lease.run(deadline: .milliseconds(500)) { leased in
                    connection.withLock { $0 = leased }
                    try await leased.query("SELECT pg_sleep(10)", logger: Self.logger)
                }
            }
            let waited = ContinuousClock.now - started
            #expect(error?.code == .storeFailure)
            #expect(error?.message.contains("did not answer within") == true, "\(String(describing: error))")
            #expect(waited >= .milliseconds(500) && waited < .seconds(8), "waited \(waited)")
            let closed = try #require(connection.withLock { $0 })
            try await closed.closeFuture.get()
            #expect(try await store.pendingCount() == 0)
        }
    }

    @Test("a transaction left idle between two statements past idleTransactionTimeout (a frozen process) is ended by the server: its locks are released, and the call fails with storeFailure")
    func idleTransactionEnded() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { _ in }  // migrated
        // 3 s: under the whole suite's load a client once took longer than 500 ms between its BEGIN and its first
        // statement, and the server ended the transaction before it locked anything.
        let store = PostgresNotificationStore(configuration: configuration, idleTransactionTimeout: .seconds(3))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            try await withClient(configuration) { admin in
                let frozen = Task {
                    try await store.transaction { connection, logger in
                        try await connection.query("SELECT version FROM schema_version FOR UPDATE", logger: logger)
                        // Frozen between two statements for much longer than the timeout.
                        try await Task.sleep(for: .seconds(30))
                        try await connection.query("SELECT 1", logger: logger)
                    }
                }
                // The rows are locked while the transaction lives, then free well before its body wakes up.
                let started = ContinuousClock.now
                var lockedAt: ContinuousClock.Instant?
                var held: Duration?
                while held == nil, ContinuousClock.now - started < .seconds(30) {
                    let free = try await admin.query("SELECT version FROM schema_version FOR UPDATE SKIP LOCKED")
                        .collect().count
                    if free == 0, lockedAt == nil { lockedAt = ContinuousClock.now }
                    if free > 0, let lockedAt { held = ContinuousClock.now - lockedAt }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(lockedAt != nil, "the transaction never held its lock")
                let duration = try #require(held, "the lock was still held after 30 s")
                #expect(duration < .seconds(15), "held for \(duration)")
                let error = await #expect(throws: EngineError.self) { try await frozen.value }
                #expect(error?.code == .storeFailure, "\(String(describing: error))")
                // The pool replaces the ended connection: the next calls work.
                #expect(try await store.pendingCount() == 0)
            }
        }
    }

    /// Has `admin` terminate `connection`'s backend, waits until PostgresNIO has torn the connection's channel down,
    /// then queries it: a query PostgresNIO 1.33 drops without answering.
    static func queryAfterTermination(_ connection: PostgresConnection, by admin: PostgresClient) async throws -> Int {
        let rows = try await connection.query("SELECT pg_backend_pid()", logger: logger)
        var backend: Int32?
        for try await pid in rows.decode(Int32.self) { backend = pid }
        let pid = try #require(backend)
        try await admin.query("SELECT pg_terminate_backend(\(pid))")
        try await connection.closeFuture.get()
        return try await connection.query("SELECT 1", logger: logger).collect().count
    }
}
