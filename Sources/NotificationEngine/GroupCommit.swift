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
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(Waiting(request: request, kind: kind, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            // A task of its own: measured, an add that wrote its own transaction in its own task waited longer on a
            // loaded machine (p50 2.4-3.5 ms against 0.41-0.46 ms, unotifyd-bench figure 1, embedded).
            if starts { Task { await self.writeUntilEmpty() } }
        }
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
                if batch.isEmpty { state.writing = false }
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
