import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NotificationEngine
import NotificationServer
import PostgresNIO
import PushTestSupport
import Synchronization
import Testing

@testable import NotificationStorePostgres

/// The pool's figures a worker exports (`unotify_database_*`), counted by the store's `ConnectionLease` on a real
/// PostgreSQL server and read from the worker's Prometheus registry and its `/metrics`.
@Suite("Server metrics: the PostgreSQL pool", .timeLimit(.minutes(3)))
struct DatabaseMetricsTests {
    static let logger = Logger(label: "test")

    /// The value of one series (`name{labels}`) in a Prometheus exposition, or `nil` when it is not there.
    static func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static let inFlight = #"unotify_database_calls_in_flight{worker="w1"}"#
    static let waits = #"unotify_database_connection_wait_seconds_count{worker="w1"}"#
    static func failures(_ reason: String) -> String {
        #"unotify_database_call_failures_total{worker="w1",reason="\#(reason)"}"#
    }

    @Test(
        "a held connection shows as 1 call in flight; a call that waits past the connection wait counts as a timeout; waits are in the histogram"
    )
    func inFlightAndWaitTimeout() async throws {
        var configuration = try await freshDatabase()
        configuration.options.maximumConnections = 1
        try await PostgresNotificationStore.withStore(
            // Long enough for the pool's one connection to be made on a loaded machine (0.5 s was not, once, alongside
            // 17 other suites; 3 s was not, once, in a fresh clone's whole suite), short enough for the timeout below.
            configuration: configuration, connectionWait: .seconds(10)
        ) { store in
            let metrics = ServerMetrics(worker: "w1")
            metrics.exportDatabaseMetrics(of: store)
            // Exported from the start: nothing in flight, every failure reason at 0.
            let initial = metrics.registry.emitToString()
            #expect(Self.value(initial, Self.inFlight) == 0, "\(initial)")
            for reason in ["connection_wait_timeout", "connection_closed", "call_deadline"] {
                #expect(Self.value(initial, Self.failures(reason)) == 0, "\(reason)")
            }
            try await Self.holdAndWait(store, metrics)
            // Released: nothing in flight; the held call's, the timed-out call's and the next call's waits counted.
            #expect(try await store.pendingCount() == 0)
            let after = metrics.registry.emitToString()
            #expect(Self.value(after, Self.inFlight) == 0)
            #expect((Self.value(after, Self.waits) ?? 0) >= 3, "\(after)")
            #expect(Self.value(after, Self.failures("connection_wait_timeout")) == 1)
            // The same figures on the worker's /metrics.
            let api = ServerAPI(
                devices: DeviceScheduler(
                    store: store,
                    scheduler: NotificationScheduler(
                        store: store, clock: ServerWorker.utcClock, presenter: NoPresenter())),
                token: "t", metrics: metrics)
            try await Application(router: api.router()).test(.router) { client in
                let response = try await client.execute(
                    uri: "/metrics", method: .get, headers: [.authorization: "Bearer t"])
                let text = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(Self.value(text, Self.failures("connection_wait_timeout")) == 1, "\(text)")
                #expect(Self.value(text, Self.inFlight) != nil)
                #expect(text.contains(#"unotify_database_connection_wait_seconds_bucket{worker="w1",le="15.0"}"#))
            }
        }
    }

    /// Holds the pool's only connection, checks the gauge shows it, and has a second call time out waiting.
    static func holdAndWait(_ store: PostgresNotificationStore, _ metrics: ServerMetrics) async throws {
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let held = Task {
            try await store.lease.run(deadline: nil) { connection in
                _ = try await connection.query("SELECT 1", logger: Self.logger).collect()
                for await _ in release { break }
            }
        }
        let holding = await eventually(within: 30) {
            Self.value(metrics.registry.emitToString(), Self.inFlight) == 1
        }
        #expect(holding)
        let error = await #expect(throws: EngineError.self) { _ = try await store.pendingCount() }
        #expect(error?.message.contains("no connection within") == true)
        let during = metrics.registry.emitToString()
        #expect(Self.value(during, Self.failures("connection_wait_timeout")) == 1, "\(during)")
        #expect(Self.value(during, Self.inFlight) == 1)
        releaser.finish()
        try await held.value
    }

    @Test("a call past its deadline and a call whose connection is closed under it are counted by reason")
    func deadlineAndClosedConnection() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration, callDeadline: nil) { store in
            let metrics = ServerMetrics(worker: "w1")
            metrics.exportDatabaseMetrics(of: store)
            await #expect(throws: EngineError.self) {
                try await store.lease.run(deadline: .milliseconds(300)) { connection in
                    try await connection.query("SELECT pg_sleep(10)", logger: Self.logger)
                }
            }
            let error = await #expect(throws: EngineError.self) {
                try await store.lease.run(deadline: nil) { connection in
                    try await Self.queryAfterTermination(connection, by: store.client)
                }
            }
            #expect(error?.message.contains("closed") == true, "\(String(describing: error))")
            let text = metrics.registry.emitToString()
            #expect(Self.value(text, Self.failures("call_deadline")) == 1, "\(text)")
            #expect(Self.value(text, Self.failures("connection_closed")) == 1, "\(text)")
            #expect(Self.value(text, Self.failures("connection_wait_timeout")) == 0)
            // A refusal by the server itself is not the pool's failure: not counted.
            await #expect(throws: (any Error).self) {
                try await store.lease.run(deadline: nil) { connection in
                    try await connection.query("SELECT * FROM no_such_table", logger: Self.logger)
                }
            }
            let later = metrics.registry.emitToString()
            for reason in ["call_deadline", "connection_closed"] {
                #expect(Self.value(later, Self.failures(reason)) == 1, "\(reason)")
            }
            // The closed call's in-flight count ended with its work: nothing held now.
            #expect(await eventually(within: 30) { Self.value(metrics.registry.emitToString(), Self.inFlight) == 0 })
        }
    }

    /// Has `admin` terminate `connection`'s backend, waits until the channel is down, then queries it.
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
