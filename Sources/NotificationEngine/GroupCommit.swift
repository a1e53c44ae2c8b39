import Foundation
import NotificationModel
import Synchronization

/// Group commit for ``NotificationScheduler/add(_:appID:)``: adds that arrive while a transaction is being written
/// wait for the next one, which takes all of them. Many clients adding at once then share one transaction and one
/// `fsync`, and each `add` still returns only once its request is durable.
///
/// An add that arrives while nothing is being written is the leader: it hands its transaction to the store's writer
/// at once (``NotificationStore/submitPending(batch:cap:at:leavingOutDenied:completion:)``), so a lone add waits for
/// nothing but its own commit. Adds that arrive meanwhile are followers: they queue, and the transaction's completion,
/// on the store's writer (GRDB's writer queue for SQLite), answers its adds and hands what queued meanwhile to the
/// writer as the next transaction. No task of its own and no thread of its own: a transaction costs no wake-up
/// besides the writer's and its adds' own (measured in docs/benchmarks.md, "Daemon add path, fewer hops"), and
/// nothing runs on the scheduler's executor, which keeps accepting adds (and delivering) while the disk works.
///
/// ```swift
/// let commits = GroupCommit(store: store)
/// let discarded = try await commits.insert(request, kind: GroupCommit.Kind(cap: 64, refusesDenied: true))
/// ```
final class GroupCommit: Sendable {
    /// Which requests may share a transaction: the same pending cap, and the same check of the apps' authorization.
    struct Kind: Equatable {
        var cap: Int?
        /// Requests of apps denied notifications are refused, in the transaction that would store them.
        var refusesDenied: Bool
    }

    /// What a transaction's writer calls once it committed (or failed), from any thread.
    typealias Completion = @Sendable (Result<PendingBatchInsertion, any Error>) -> Void

    /// An add waiting for its transaction.
    private struct Waiting {
        var request: PendingRequest
        var kind: Kind
        var continuation: CheckedContinuation<[PendingRequest], any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        /// Whether a transaction is with the writer: an add arriving now waits for its completion.
        var writing = false

        /// Takes the leading run of waiting adds of the same kind: the next transaction.
        mutating func takeBatch() -> [Waiting] {
            let kind = waiting.first?.kind
            let count = waiting.firstIndex { $0.kind != kind } ?? waiting.count
            let batch = Array(waiting.prefix(count))
            waiting.removeFirst(count)
            return batch
        }
    }

    private let submit: @Sendable ([PendingRequest], Kind, @escaping Completion) -> Void
    private let state = Mutex(State())

    /// - Parameter submit: Starts a transaction storing the requests and returns at once; calls its completion once
    ///   the transaction committed (with the requests the cap discarded and the denied apps left out, as
    ///   ``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:)`` returns them) or failed. The completion may
    ///   run on any thread, and may call `submit` again for the next transaction.
    init(submit: @escaping @Sendable ([PendingRequest], Kind, @escaping Completion) -> Void) {
        self.submit = submit
    }

    /// Group commit through an `async` writer: each transaction runs in a task of its own (for tests, and for
    /// writers that have no queue of their own).
    convenience init(write: @escaping @Sendable ([PendingRequest], Kind) async throws -> PendingBatchInsertion) {
        self.init { requests, kind, completion in
            Task {
                do { completion(.success(try await write(requests, kind))) } catch { completion(.failure(error)) }
            }
        }
    }

    /// Group commit into `store` (whose own pending cap takes precedence over the one each insert names).
    convenience init(store: any NotificationStore) {
        self.init { requests, kind, completion in
            store.submitPending(
                batch: requests, cap: kind.cap, at: requests.last?.addedAt ?? Date(), leavingOutDenied: kind.refusesDenied,
                completion: completion)
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
        try await withCheckedThrowingContinuation { continuation in
            let batch = state.withLock { state -> [Waiting]? in
                state.waiting.append(Waiting(request: request, kind: kind, continuation: continuation))
                guard !state.writing else { return nil }
                state.writing = true
                return state.takeBatch()
            }
            // The leader: its transaction goes to the writer from this thread, with no task in between.
            if let batch { start(batch) }
        }
    }

    /// How many adds wait for the next transaction (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Hands a transaction to the writer.
    private func start(_ batch: [Waiting]) {
        submit(batch.map(\.request), batch[0].kind) { [self] result in finish(batch, result) }
    }

    /// On the writer, once `batch`'s transaction ended: answers its adds, then hands what queued meanwhile to the
    /// writer as the next transaction (or marks the writer idle, so the next add leads).
    private func finish(_ batch: [Waiting], _ result: Result<PendingBatchInsertion, any Error>) {
        Self.answer(batch, result)
        let next = state.withLock { state -> [Waiting]? in
            let next = state.takeBatch()
            guard !next.isEmpty else {
                state.writing = false
                return nil
            }
            return next
        }
        if let next { start(next) }
    }

    private static func answer(_ batch: [Waiting], _ result: Result<PendingBatchInsertion, any Error>) {
        let inserted: PendingBatchInsertion
        switch result {
        case .success(let value): inserted = value
        case .failure(let error):
            for waiting in batch { waiting.continuation.resume(throwing: error) }
            return
        }
        let byApp = Dictionary(grouping: inserted.discarded, by: \.appID)
        let lastOfApp = Dictionary(batch.indices.map { (batch[$0].request.appID, $0) }) { _, later in later }
        for (index, waiting) in batch.enumerated() {
            let app = waiting.request.appID
            do {
                try checkAllowed(waiting.request, kind: waiting.kind, inserted)
                waiting.continuation.resume(returning: lastOfApp[app] == index ? byApp[app] ?? [] : [])
            } catch {
                waiting.continuation.resume(throwing: error)
            }
        }
    }

    private static func checkAllowed(_ request: PendingRequest, kind: Kind, _ inserted: PendingBatchInsertion) throws {
        guard kind.refusesDenied, inserted.deniedAppIDs.contains(request.appID) else { return }
        throw EngineError(.notificationsNotAllowed, "notifications are not allowed for \(request.appID)")
    }
}
