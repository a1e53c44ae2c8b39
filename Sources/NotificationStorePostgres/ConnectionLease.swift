import Foundation
import NotificationEngine
import PostgresNIO
import Synchronization

/// Leases a pooled connection for one store call, waiting for it at most a given time.
///
/// PostgresNIO's pool keeps a call waiting while it cannot connect, and fails the waiting calls only once its
/// connection attempts have failed for a whole minute. A store call here waits at most
/// ``PostgresNotificationStore/connectionWait`` for its connection, then fails with
/// ``EngineError/Code-swift.enum/storeFailure`` (the HTTP API answers 503 `StoreUnavailable`): an API client learns
/// within seconds that the database is down, and the engine retries as it does after any failed store call. A call
/// that got its connection in time is never cut short, so a transaction is either run to its end or not begun.
///
/// ```swift
/// let count = try await ConnectionLease.run(client, waiting: .seconds(15)) { connection in
///     try await connection.query("SELECT count(*) FROM pending", logger: logger).collect().count
/// }
/// ```
enum ConnectionLease {
    /// Where one lease stands: the two racing tasks agree on it under a lock, so the body runs only if the wait did
    /// not end first.
    private enum Phase {
        case waiting
        case leased
        case gaveUp
    }

    /// The phase, shared by the two tasks.
    private final class Shared: Sendable {
        let phase = Mutex(Phase.waiting)
    }

    /// Runs `body` on a pooled connection, or throws ``EngineError/Code-swift.enum/storeFailure`` when none was
    /// available within `wait`.
    ///
    /// - Parameters:
    ///   - client: The pool.
    ///   - wait: How long to wait for a connection.
    ///   - body: The work; once it has its connection it runs to its end, however long it takes.
    /// - Throws: What `body` or the pool throws, or the store failure above.
    static func run<T: Sendable>(
        _ client: PostgresClient, waiting wait: Duration,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let shared = Shared()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    let late = shared.phase.withLock { phase in
                        guard phase == .waiting else { return true }
                        phase = .leased
                        return false
                    }
                    if late { throw CancellationError() }
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: wait)
                let gaveUp = shared.phase.withLock { phase in
                    guard phase == .waiting else { return false }
                    phase = .gaveUp
                    return true
                }
                guard gaveUp else { return nil }
                throw EngineError(
                    .storeFailure,
                    "PostgreSQL gave no connection within \(wait) (the server is unreachable, or every connection "
                        + "of the pool stayed busy that long)")
            }
            while let result = try await group.next() {
                if let value = result {
                    group.cancelAll()
                    return value
                }
            }
            // Not reached: the body's task yields `.some` (even when T is itself optional) or throws, and the group
            // returns or throws with it.
            throw CancellationError()
        }
    }
}
