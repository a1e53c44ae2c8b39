import CoreMetrics
import Foundation
import Logging
import NotificationEngine
import NIOCore
import PostgresNIO
import Synchronization

/// Leases a pooled connection for one store call, bounding both the wait for the connection and the call on it.
///
/// **The wait.** PostgresNIO's pool keeps a call waiting while it cannot connect, and fails the waiting calls only
/// once its connection attempts have failed for a whole minute. A store call here waits at most
/// ``PostgresNotificationStore/connectionWait`` for its connection, then fails with
/// ``EngineError/Code-swift.enum/storeFailure`` (the HTTP API answers 503 `StoreUnavailable`): an API client learns
/// within seconds that the database is down, and the engine retries as it does after any failed store call.
///
/// **The call.** A call that has its connection fails with ``EngineError/Code-swift.enum/storeFailure``
/// - as soon as that connection closes (the server stopped or cut it): PostgresNIO (1.33) drops a query written to a
///   connection whose channel has already closed without ever answering it (`PostgresConnection.query` writes with
///   `promise: nil`, and a closed channel's pipeline fails the write only through that promise), so a call that got a
///   connection in the instant the server went away, or that sends `ROLLBACK` after its query failed on a closed
///   connection, would otherwise wait forever;
/// - or when it has not ended ``PostgresNotificationStore/callDeadline`` after it got its connection (a server that
///   stopped answering without closing the connection: a network cut, a host that vanished): the connection is then
///   closed, and the pool replaces it.
///
/// Either way the caller is answered, while the body (which may never resume) is left to end on its own. A call that
/// failed this way may or may not have committed: its `COMMIT` may have reached the server before the connection was
/// lost. Every store call is one transaction, so it either took effect as a whole or not at all, and the engine's
/// callers cope with both (see "When PostgreSQL is down" in docs/server-mode.md).
///
/// ```swift
/// let lease = ConnectionLease(client: client, wait: .seconds(15), logger: logger)
/// let count = try await lease.run(deadline: .seconds(60)) { connection in
///     try await connection.query("SELECT count(*) FROM pending", logger: logger).collect().count
/// }
/// ```
final class ConnectionLease: Sendable {
    /// The pool.
    let client: PostgresClient
    /// How long a call waits for a connection.
    let wait: Duration
    /// Where calls cut short are logged.
    let logger: Logger
    /// How to fail the calls running on each connection, by connection and call number, for when it closes. A
    /// connection is listed from its first call until it closes, so the list is as long as the pool at most.
    private let watched = Mutex<[PostgresConnection.ID: [UInt64: @Sendable (any Error) -> Bool]]>([:])
    /// The number of the last call.
    private let calls = Atomic<UInt64>(0)
    /// How many calls hold a connection now (``DatabaseMetrics/inFlight``).
    private let holding = Atomic<Int>(0)
    /// Where the calls are counted, once ``export(to:)`` was called.
    private let metrics = Mutex<DatabaseMetrics?>(nil)

    /// Creates the lease of a pool.
    ///
    /// - Parameters:
    ///   - client: The pool.
    ///   - wait: How long a call waits for a connection.
    ///   - logger: Where calls cut short are logged.
    init(client: PostgresClient, wait: Duration, logger: Logger) {
        self.client = client
        self.wait = wait
        self.logger = logger
    }

    /// Runs `body` on a pooled connection and answers with its result, or with
    /// ``EngineError/Code-swift.enum/storeFailure`` when no connection came within the wait, when the connection
    /// closed during the call, or when the call outlived `deadline`.
    ///
    /// - Parameters:
    ///   - deadline: How long the call may run once it has its connection; `nil` for no limit.
    ///   - body: The work on the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` or the pool throws, or the store failures above.
    func run<T: Sendable>(
        deadline: Duration?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let number = calls.add(1, ordering: .relaxed).newValue
        let started = ContinuousClock.now
        return try await withCheckedThrowingContinuation { (caller: CheckedContinuation<T, any Error>) in
            let call = Call(number: number, caller: caller)
            let work = Task {
                do {
                    let value = try await self.client.withConnection { connection in
                        guard call.lease() else { throw CancellationError() }
                        self.recordWait(since: started)
                        // In flight until answered or done: a body PostgresNIO never resumes (see above) stops
                        // counting when its caller is failed.
                        if call.startCounting() { self.hold(1) }
                        call.onAnswer { if call.stopCounting() { self.hold(-1) } }
                        defer { if call.stopCounting() { self.hold(-1) } }
                        if let deadline {
                            let expiry = Task { await self.expire(call, on: connection, after: deadline) }
                            call.onAnswer { expiry.cancel() }
                        }
                        self.watch(connection, number: number) { error in
                            call.fail(error) { self.count(.connectionClosed) }
                        }
                        defer { self.unwatch(connection, number: number) }
                        return try await body(connection)
                    }
                    call.answer(.success(value))
                } catch {
                    let lost = Self.lostConnection(error)
                    call.fail(lost ?? error) { if lost != nil { self.count(.connectionClosed) } }
                }
            }
            let timer = Task { await self.giveUp(call) }
            call.onAnswer {
                work.cancel()
                timer.cancel()
            }
        }
    }

    // MARK: - Metrics

    /// Counts the calls from now on with `factory` (``DatabaseMetrics``), each figure with `dimensions`; the calls
    /// holding a connection now are counted in the gauge at once.
    func export(to factory: any MetricsFactory, dimensions: [(String, String)]) {
        let figures = DatabaseMetrics(factory: factory, dimensions: dimensions)
        metrics.withLock { metrics in
            metrics = figures
            figures.inFlight.record(holding.load(ordering: .relaxed))
        }
    }

    /// Adds `change` to the calls holding a connection, and sets the gauge.
    private func hold(_ change: Int) {
        metrics.withLock { metrics in
            let now = holding.add(change, ordering: .relaxed).newValue
            metrics?.inFlight.record(now)
        }
    }

    /// Records a call's wait for its connection, from `started` to now.
    private func recordWait(since started: ContinuousClock.Instant) {
        let waited = ContinuousClock.now - started
        metrics.withLock { $0 }?.recordWait(waited)
    }

    /// Counts a call the lease failed itself.
    private func count(_ failure: DatabaseMetrics.Failure) {
        metrics.withLock { $0 }?.failures[failure]?.increment()
    }

    // MARK: - Failing calls

    /// Fails `call` when it got no connection within the wait.
    private func giveUp<T: Sendable>(_ call: Call<T>) async {
        let wait = self.wait
        let started = ContinuousClock.now
        do { try await Task.sleep(for: wait) } catch { return }
        guard call.giveUp() else { return }
        recordWait(since: started)
        call.fail(
            EngineError(
                .storeFailure,
                "PostgreSQL gave no connection within \(wait) (the server is unreachable, or every connection of the "
                    + "pool stayed busy that long)")
        ) { count(.connectionWaitTimeout) }
    }

    /// Fails `call` when it still runs on `connection` after `deadline`, and closes the connection.
    private func expire<T: Sendable>(
        _ call: Call<T>, on connection: PostgresConnection, after deadline: Duration
    ) async {
        do { try await Task.sleep(for: deadline) } catch { return }
        let message = "PostgreSQL did not answer within \(deadline); the connection was closed"
        guard call.fail(EngineError(.storeFailure, message), answering: { count(.callDeadline) }) else { return }
        logger.warning("\(message)", metadata: ["psql_connection_id": "\(connection.id)"])
        try? await connection.close()
    }

    /// The store failure a PostgresNIO error stands for when it says the connection was lost (closed by either side,
    /// broken, or cut by a server shutting down), so that callers see one error for a lost database; `nil` otherwise.
    static func lostConnection(_ error: any Error) -> EngineError? {
        guard let error = error as? PSQLError else { return nil }
        let lost: [PSQLError.Code] = [
            .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
        ]
        // SQLSTATE class 57P: the server is shutting down, crashed, or not accepting connections yet.
        let shuttingDown = error.code == .server && error.serverInfo?[.sqlState]?.hasPrefix("57P") == true
        guard lost.contains(error.code) || shuttingDown else { return nil }
        // The code and SQLSTATE only: PostgresNIO's full description may carry the query's values.
        let state = error.serverInfo?[.sqlState].map { ", SQLSTATE \($0)" } ?? ""
        return EngineError(.storeFailure, "the connection to PostgreSQL was lost (\(error.code)\(state))")
    }

    /// Lists a call as running on `connection`; the first call on a connection asks to hear when it closes.
    private func watch(
        _ connection: PostgresConnection, number: UInt64, fail: @escaping @Sendable (any Error) -> Bool
    ) {
        let id = connection.id
        let first = watched.withLock { watched in
            let first = watched[id] == nil
            watched[id, default: [:]][number] = fail
            return first
        }
        guard first else { return }
        // Runs at once when the connection has closed already.
        connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            let calls = self.watched.withLock { $0.removeValue(forKey: id) } ?? [:]
            let message = "the connection to PostgreSQL closed during the call (the server stopped, or cut it)"
            // Each call answered here is counted as it is answered (the closure given to `watch`).
            let failed = calls.values.filter { fail in fail(EngineError(.storeFailure, message)) }.count
            if failed > 0 { self.logger.warning("\(message)", metadata: ["psql_connection_id": "\(id)"]) }
        }
    }

    /// Takes a call off the calls running on `connection`.
    private func unwatch(_ connection: PostgresConnection, number: UInt64) {
        watched.withLock { watched in _ = watched[connection.id]?.removeValue(forKey: number) }
    }
}
