import Foundation
import NotificationModel
import Synchronization

/// Group commit for ``NotificationScheduler/add(_:appID:)``: adds that arrive while a transaction is being written
/// wait for the next one, which takes all of them. Many clients adding at once then share one transaction and one
/// `fsync`, and each `add` still returns only once its request is durable.
///
/// An add that arrives while nothing is being written starts a transaction at once, so a lone add waits for nothing
/// but its own commit. Transactions run on a thread of their own, never on the scheduler's executor, which keeps
/// accepting adds (and delivering) while the disk works.
final class GroupCommit: Sendable {
    /// An add waiting for its transaction.
    private struct Waiting {
        var request: PendingRequest
        var continuation: CheckedContinuation<[PendingRequest], any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let write: @Sendable ([PendingRequest]) throws -> [PendingRequest]
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "OpenUserNotifications.group-commit")

    /// - Parameter write: Stores requests in one transaction and returns those the pending cap discarded
    ///   (``NotificationStore/insertPending(batch:cap:at:)``).
    init(write: @escaping @Sendable ([PendingRequest]) throws -> [PendingRequest]) {
        self.write = write
    }

    /// Group commit into `store`, with the engine's pending cap (the store's own policy takes precedence).
    convenience init(store: any NotificationStore, cap: Int?) {
        self.init { requests in try store.insertPending(batch: requests, cap: cap, at: requests.last?.addedAt ?? Date()) }
    }

    /// Stores `request` in the next transaction and returns once that transaction is committed.
    ///
    /// - Returns: The requests of the same app that the pending cap discarded in that transaction (given to the last
    ///   add of the app in it; the others get none), so each is handled once.
    /// - Throws: What the store threw; the whole transaction, this request included, is then not stored.
    func insert(_ request: PendingRequest) async throws -> [PendingRequest] {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(Waiting(request: request, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if starts { queue.async { self.writeUntilEmpty() } }
        }
    }

    /// How many adds wait for the next transaction (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Writes what waits, one transaction at a time, until nothing does.
    private func writeUntilEmpty() {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let discarded = try write(batch.map(\.request))
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
