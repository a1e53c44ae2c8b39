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
    /// An add waiting for its transaction.
    private struct Waiting {
        var request: PendingRequest
        var cap: Int?
        var continuation: CheckedContinuation<[PendingRequest], any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let write: @Sendable ([PendingRequest], Int?) async throws -> [PendingRequest]
    private let state = Mutex(State())

    /// - Parameter write: Stores requests in one transaction with a pending cap and returns those the cap discarded
    ///   (``NotificationStore/insertPending(batch:cap:at:)``).
    init(write: @escaping @Sendable ([PendingRequest], Int?) async throws -> [PendingRequest]) {
        self.write = write
    }

    /// Group commit into `store` (whose own pending cap takes precedence over the one each insert names).
    convenience init(store: any NotificationStore) {
        self.init { requests, cap in
            try await store.insertPending(batch: requests, cap: cap, at: requests.last?.addedAt ?? Date())
        }
    }

    /// Stores `request` in the next transaction and returns once that transaction is committed.
    ///
    /// Requests with different caps (an add's, and a push's `nil`) go in different transactions, in arrival order.
    ///
    /// - Returns: The requests of the same app that the pending cap discarded in that transaction (given to the last
    ///   add of the app in it; the others get none), so each is handled once.
    /// - Throws: What the store threw; the whole transaction, this request included, is then not stored.
    func insert(_ request: PendingRequest, cap: Int?) async throws -> [PendingRequest] {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(Waiting(request: request, cap: cap, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if starts { Task { await self.writeUntilEmpty() } }
        }
    }

    /// How many adds wait for the next transaction (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Writes what waits, one transaction at a time, until nothing does.
    private func writeUntilEmpty() async {
        while true {
            let batch = state.withLock { state in
                // The leading run of waiting adds with the same cap.
                let cap = state.waiting.first?.cap
                let count = state.waiting.firstIndex { $0.cap != cap } ?? state.waiting.count
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let discarded = try await write(batch.map(\.request), batch[0].cap)
                let byApp = Dictionary(grouping: discarded, by: \.appID)
                let lastOfApp = Dictionary(batch.indices.map { (batch[$0].request.appID, $0) }) { _, later in later }
                for (index, waiting) in batch.enumerated() {
                    let app = waiting.request.appID
                    waiting.continuation.resume(returning: lastOfApp[app] == index ? byApp[app] ?? [] : [])
                }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}
