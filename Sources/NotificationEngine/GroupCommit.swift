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
    /// Which requests may share a transaction: the same pending cap, the same check of the apps' authorization, and
    /// the same claim.
    struct Kind: Equatable {
        var cap: Int?
        /// Requests of apps denied notifications are refused, in the transaction that would store them.
        var refusesDenied: Bool
        /// When set, the requests are stored claimed by this process for this long from the transaction
        /// (``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:claimedUntil:)``); only with `refusesDenied`.
        var claimLease: TimeInterval? = nil
    }

    /// What a transaction did with one waiting request.
    struct Stored: Sendable {
        /// The requests of the same app the pending cap discarded (see ``insert(_:kind:)``).
        var discarded: [PendingRequest]
        /// The request as stored and claimed, with its revision, when the kind claims and the store claimed it.
        var claimed: PendingRequest?
    }

    /// An add waiting for its transaction.
    private struct Waiting {
        var request: PendingRequest
        var kind: Kind
        var continuation: CheckedContinuation<Stored, any Error>
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

    /// Group commit into `store` (whose own pending cap takes precedence over the one each insert names); a claim's
    /// lease counts from `clock`'s now when its transaction starts.
    convenience init(store: any NotificationStore, clock: any NotificationClock) {
        self.init { requests, kind in
            let date = requests.last?.addedAt ?? clock.now
            guard kind.refusesDenied else {
                let discarded = try await store.insertPending(batch: requests, cap: kind.cap, at: date)
                return PendingBatchInsertion(discarded: discarded, deniedAppIDs: [])
            }
            if let lease = kind.claimLease {
                return try await store.insertPendingOfAllowedApps(
                    batch: requests, cap: kind.cap, at: date, claimedUntil: clock.now.addingTimeInterval(lease))
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
        try await store(request, kind: kind).discarded
    }

    /// Stores `request` as ``insert(_:kind:)`` does and returns what the transaction did with it: the requests the
    /// cap discarded and, for a kind with a ``Kind/claimLease``, the request as stored and claimed by this process
    /// (`nil` when the store claimed nothing, or a later request of the transaction replaced it).
    ///
    /// ```swift
    /// let stored = try await commits.store(push, kind: .init(cap: nil, refusesDenied: true, claimLease: 60))
    /// if let claimed = stored.claimed { /* present it, then record it */ }
    /// ```
    /// - Throws: As ``insert(_:kind:)``.
    func store(_ request: PendingRequest, kind: Kind) async throws -> Stored {
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

    /// A request's app and identifier, which one pending request at a time has.
    private static func key(_ request: PendingRequest) -> String { request.appID + "\u{0}" + request.identifier }

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
                // A claimed request goes to the last waiting request with its app and identifier (an earlier one was
                // replaced by it in the same transaction).
                let claimed = Dictionary(inserted.claimed.map { (Self.key($0), $0) }) { _, later in later }
                let lastOfKey = Dictionary(batch.indices.map { (Self.key(batch[$0].request), $0) }) { _, later in
                    later
                }
                for (index, waiting) in batch.enumerated() {
                    let app = waiting.request.appID
                    do {
                        try Self.checkAllowed(waiting.request, kind: waiting.kind, inserted)
                        let key = Self.key(waiting.request)
                        waiting.continuation.resume(
                            returning: Stored(
                                discarded: lastOfApp[app] == index ? byApp[app] ?? [] : [],
                                claimed: lastOfKey[key] == index ? claimed[key] : nil))
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
