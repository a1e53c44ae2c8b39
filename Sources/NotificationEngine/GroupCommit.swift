import Foundation
import NotificationModel
import Synchronization

/// Group commit for ``NotificationScheduler/add(_:appID:)``: adds that arrive while a transaction is being written
/// wait for the next one, which takes all of them. Many clients adding at once then share one transaction and one
/// `fsync`, and each `add` still returns only once its request is durable.
///
/// An add that arrives while nothing is being written starts a transaction at once, so a lone add waits for nothing
/// but its own commit. Transactions are written by a task of their own, never on the scheduler's executor, which keeps
/// accepting adds (and delivering) while the disk works.
final class GroupCommit: Sendable {
    /// Which requests may share a transaction: the same pending cap, and the same check of the apps' authorization.
    struct Kind: Equatable {
        var cap: Int?
        /// Requests of apps denied notifications are refused, in the transaction that would store them.
        var refusesDenied: Bool
    }

    /// An add waiting for its transaction.
    private struct Waiting {
        var request: PendingRequest
        var kind: Kind
        var continuation: CheckedContinuation<[PendingRequest], any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
        /// How many adds the last transaction stored: more than one while adds arrive concurrently.
        var lastBatchCount = 0
    }

    private let write: @Sendable ([PendingRequest], Kind) async throws -> PendingBatchInsertion
    private let state = Mutex(State())

    /// - Parameter write: Stores requests in one transaction and returns those the cap discarded and the denied apps
    ///   left out (``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:)``).
    init(write: @escaping @Sendable ([PendingRequest], Kind) async throws -> PendingBatchInsertion) {
        self.write = write
    }

    /// Group commit into `store` (whose own pending cap takes precedence over the one each insert names).
    convenience init(store: any NotificationStore) {
        self.init { requests, kind in
            let date = requests.last?.addedAt ?? Date()
            guard kind.refusesDenied else {
                let discarded = try await store.insertPending(batch: requests, cap: kind.cap, at: date)
                return PendingBatchInsertion(discarded: discarded, deniedAppIDs: [])
            }
            return try await store.insertPendingOfAllowedApps(batch: requests, cap: kind.cap, at: date)
        }
    }

    /// Stores `request` in the next transaction and returns once that transaction is committed.
    ///
    /// Requests of different kinds (an add's cap and check, a push's) go in different transactions, in arrival order.
    ///
    /// - Returns: The requests of the same app that the pending cap discarded in that transaction (given to the last
    ///   add of the app in it; the others get none), so each is handled once.
    /// - Throws: ``EngineError`` `notificationsNotAllowed` when `kind` refuses denied apps and the request's app is
    ///   denied (nothing of it is stored); otherwise what the store threw, and then the whole transaction, this
    ///   request included, is not stored.
    func insert(_ request: PendingRequest, kind: Kind) async throws -> [PendingRequest] {
        // Nothing is being written (so nothing waits), the last transaction was a lone add's too, and the caller's
        // task runs on an executor of its own: this add writes its own transaction, in its own task (see writeAlone).
        let leads = Self.callerHasOwnExecutor && state.withLock { state in
            guard !state.writing, state.lastBatchCount <= 1 else { return false }
            state.writing = true
            state.lastBatchCount = 1
            return true
        }
        if leads { return try await writeAlone(request, kind: kind) }
        return try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(Waiting(request: request, kind: kind, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            // The transaction in progress ended meanwhile: a task of its own writes what waits.
            if starts { Task { await self.writeUntilEmpty() } }
        }
    }

    /// Whether the calling task prefers an executor of its own (a task executor, such as the daemon's event loop for
    /// a connection's reader) over the global concurrency pool.
    private static var callerHasOwnExecutor: Bool {
        guard #available(macOS 15.0, *) else { return false }
        return withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
    }

    /// Writes `request` alone, in the caller's task, and hands what arrived meanwhile to a task of its own.
    ///
    /// A lone add then costs no thread hand-over but its commit's: the caller's thread hands the transaction to the
    /// store's writer, which resumes the caller on its executor, where a task started per transaction cost the hop
    /// from the daemon connection's event loop to the concurrency pool and back. Adds arriving while this one is
    /// written wait for the next transaction, written by ``writeUntilEmpty()`` as soon as this one ends; this add does
    /// not wait for that one.
    ///
    /// Not while adds arrive concurrently (the last transaction stored several): the transaction after this one would
    /// then start only once this add's task is back on its executor and has started the group commit's task, two
    /// thread hand-overs during which the disk idles, where the group commit's task starts it at once (measured,
    /// unotifyd-bench figure 2, 8 clients of a spawned daemon: fewer adds per second without this rule in five of six
    /// pairs, medians ×0.39; docs/benchmarks.md, session 10).
    ///
    /// Only for callers on an executor of their own: measured (unotifyd-bench figure 1, embedded, session 10), an add
    /// on the global pool resumed straight from the store's writer thread waited 3-4 ms for a pool thread (p50 3.95 ms
    /// against 0.34 ms through the task), as the reverted attempts of sessions before had found.
    private func writeAlone(_ request: PendingRequest, kind: Kind) async throws -> [PendingRequest] {
        let result: Result<PendingBatchInsertion, any Error>
        do {
            result = .success(try await write([request], kind))
        } catch {
            result = .failure(error)
        }
        let handsOver = state.withLock { state in
            if state.waiting.isEmpty { state.writing = false }
            return !state.waiting.isEmpty
        }
        if handsOver { Task { await self.writeUntilEmpty() } }
        let inserted = try result.get()
        try Self.checkAllowed(request, kind: kind, inserted)
        return inserted.discarded.filter { $0.appID == request.appID }
    }

    /// How many adds wait for the next transaction (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    private static func checkAllowed(_ request: PendingRequest, kind: Kind, _ inserted: PendingBatchInsertion) throws {
        guard kind.refusesDenied, inserted.deniedAppIDs.contains(request.appID) else { return }
        throw EngineError(.notificationsNotAllowed, "notifications are not allowed for \(request.appID)")
    }

    /// Writes what waits, one transaction at a time, until nothing does.
    private func writeUntilEmpty() async {
        while true {
            let batch = state.withLock { state in
                // The leading run of waiting adds of the same kind.
                let kind = state.waiting.first?.kind
                let count = state.waiting.firstIndex { $0.kind != kind } ?? state.waiting.count
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                if batch.isEmpty { state.writing = false } else { state.lastBatchCount = batch.count }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let inserted = try await write(batch.map(\.request), batch[0].kind)
                let byApp = Dictionary(grouping: inserted.discarded, by: \.appID)
                let lastOfApp = Dictionary(batch.indices.map { (batch[$0].request.appID, $0) }) { _, later in later }
                for (index, waiting) in batch.enumerated() {
                    let app = waiting.request.appID
                    do {
                        try Self.checkAllowed(waiting.request, kind: waiting.kind, inserted)
                        waiting.continuation.resume(returning: lastOfApp[app] == index ? byApp[app] ?? [] : [])
                    } catch {
                        waiting.continuation.resume(throwing: error)
                    }
                }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}
