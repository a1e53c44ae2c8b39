import Foundation
import NotificationAPNsProvider
import NotificationEngine
import NotificationServer
import NotificationStorePostgres
import PostgresNIO
import PushTestSupport
import Synchronization

/// Workers in this process, as `unotifyd --server` runs them: each with its own store (and pool), its own APNs
/// client for the devices' side, claiming ``ServerWorker/claimBatch`` per pass, woken by `LISTEN/NOTIFY`.
enum BenchWorkers {
    /// Runs `count` workers on the database while `body` runs, then stops them (workers first, pools last).
    ///
    /// ```swift
    /// let last = try await BenchWorkers.with(4, configuration: configuration, side: side) { try await waitForBurst() }
    /// ```
    static func with<T: Sendable>(
        _ count: Int, configuration: PostgresClient.Configuration, side: DeviceSide,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        let stores = (0..<count).map {
            PostgresNotificationStore(configuration: configuration, owner: "bench-worker-\($0)")
        }
        let clients = try (0..<count).map { _ in try side.client() }
        var engine = EngineConfiguration()
        engine.claimBatch = ServerWorker.claimBatch
        engine.batchesInFlight = ServerWorker.batchesInFlight
        let workers = zip(stores, clients).map { store, client in
            ServerWorker(store: store, development: client, production: client, configuration: engine)
        }
        let pools = stores.map { store in Task { await store.run() } }
        let running = workers.map { worker in Task { await worker.run() } }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        for task in running { task.cancel() }
        // A run of the burst once hung here (no task runnable, no query open) after the workers' claims had
        // outlived their leases: the wait is bounded, so that the bench reports what it measured and goes on.
        let stopped = Mutex(false)
        Task {
            for task in running { await task.value }
            stopped.withLock { $0 = true }
        }
        guard await eventually(within: 120, { stopped.withLock { $0 } }) else {
            progress("\(count) worker(s) did not stop within 120 s of being cancelled: left running, the bench goes on")
            return try result.get()
        }
        for pool in pools { pool.cancel() }
        for pool in pools { await pool.value }
        for client in clients { try? await client.shutdown() }
        return try result.get()
    }
}
