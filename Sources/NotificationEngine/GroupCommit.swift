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
///
/// The delivery loop's recordings of fires (``record(_:)``) wait here too, and the next transaction takes every fire
/// waiting beside its requests: under a stream of pushes, each accepted and then recorded, one transaction and one
/// `fsync` serve both instead of one each.
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
        /// Called once with what the transaction did with the request: resumes its add (``store(_:kind:)``), or
        /// fills its place in a batch (``storeAll(_:kind:)``).
        var complete: @Sendable (Result<Stored, any Error>) -> Void
    }

    /// The results of a batch handed over by ``storeAll(_:kind:)``, resumed when the last one is in. Its state sits
    /// in a `Mutex`.
    private final class BatchWait: Sendable {
        private let state: Mutex<(left: Int, results: [Result<Stored, any Error>?])>
        private let continuation: CheckedContinuation<[Result<Stored, any Error>], Never>

        init(count: Int, continuation: CheckedContinuation<[Result<Stored, any Error>], Never>) {
            state = Mutex((count, Array(repeating: nil, count: count)))
            self.continuation = continuation
        }

        /// Records the result of the batch's request at `index`; the last one resumes the batch.
        func set(_ index: Int, _ result: Result<Stored, any Error>) {
            let done = state.withLock { state -> [Result<Stored, any Error>]? in
                state.results[index] = result
                state.left -= 1
                return state.left == 0 ? state.results.map { $0! } : nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Fires waiting to be recorded in the next transaction.
    private struct WaitingFires {
        var fires: [FireCompletion]
        var continuation: CheckedContinuation<[Int64], any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var waitingFires: [WaitingFires] = []
        var writing = false
        /// How many adds the last transaction stored: more than one while adds arrive concurrently.
        var lastBatchCount = 0
    }

    private let write: @Sendable ([PendingRequest], Kind) async throws -> PendingBatchInsertion
    private let writeWithFires: @Sendable ([FireCompletion], [PendingRequest], Kind?) async -> FiresAndInsertion
    private let state = Mutex(State())

    /// - Parameters:
    ///   - write: Stores requests in one transaction and returns those the cap discarded and the denied apps left out
    ///     (``NotificationStore/insertPendingOfAllowedApps(batch:cap:at:)``).
    ///   - writeWithFires: Records fires and stores requests of one kind (possibly none, then the kind is `nil`), in
    ///     one transaction where it can, with a result for each part
    ///     (``NotificationStore/completeFires(_:insertingPending:cap:at:leavingOutDenied:claimedUntil:)``).
    init(
        write: @escaping @Sendable ([PendingRequest], Kind) async throws -> PendingBatchInsertion,
        writeWithFires: @escaping @Sendable ([FireCompletion], [PendingRequest], Kind?) async -> FiresAndInsertion
    ) {
        self.write = write
        self.writeWithFires = writeWithFires
    }

    /// Group commit into `store` (whose own pending cap takes precedence over the one each insert names); a claim's
    /// lease counts from `clock`'s now when its transaction starts.
    convenience init(store: any NotificationStore, clock: any NotificationClock) {
        self.init(
            write: { requests, kind in
                try await store.insertPending(
                    batch: requests, cap: kind.cap, at: requests.last?.addedAt ?? clock.now,
                    leavingOutDenied: kind.refusesDenied,
                    claimedUntil: kind.claimLease.map { clock.now.addingTimeInterval($0) })
            },
            writeWithFires: { fires, requests, kind in
                guard let kind, !requests.isEmpty else {
                    do {
                        return FiresAndInsertion(
                            historyIDs: .success(try await store.completeFires(fires)),
                            insertion: .success(PendingBatchInsertion(discarded: [], deniedAppIDs: [])))
                    } catch {
                        return FiresAndInsertion(
                            historyIDs: .failure(error),
                            insertion: .success(PendingBatchInsertion(discarded: [], deniedAppIDs: [])))
                    }
                }
                return await store.completeFires(
                    fires, insertingPending: requests, cap: kind.cap, at: requests.last?.addedAt ?? clock.now,
                    leavingOutDenied: kind.refusesDenied,
                    claimedUntil: kind.claimLease.map { clock.now.addingTimeInterval($0) })
            })
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
        // Nothing is being written (so nothing waits), the last transaction was a lone add's too, and the caller's
        // task runs on an executor of its own: this request writes its own transaction, in the caller's task (see
        // writeAlone).
        let leads = Self.callerHasOwnExecutor && state.withLock { state in
            guard !state.writing, state.lastBatchCount <= 1 else { return false }
            state.writing = true
            state.lastBatchCount = 1
            return true
        }
        if leads { return try await writeAlone(request, kind: kind) }
        return try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(
                    Waiting(request: request, kind: kind, complete: { continuation.resume(with: $0) }))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            // The transaction in progress ended meanwhile: a task of its own writes what waits.
            if starts { Task { await self.writeUntilEmpty() } }
        }
    }

    /// Stores `requests` in the next transaction, all of them in the same one unless they are more than a transaction
    /// takes, and returns once it is committed, with what it did with each request, in order.
    ///
    /// One wait for the whole batch (the APNs endpoint's pushes of one read of a connection), where ``store(_:kind:)``
    /// called for each would suspend and resume each caller on its own.
    ///
    /// ```swift
    /// let results = await commits.storeAll(pushes, kind: .init(cap: nil, refusesDenied: true))
    /// ```
    /// - Returns: For each request, what ``store(_:kind:)`` returns or throws for it.
    func storeAll(_ requests: [PendingRequest], kind: Kind) async -> [Result<Stored, any Error>] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let wait = BatchWait(count: requests.count, continuation: continuation)
            let starts = state.withLock { state in
                for (index, request) in requests.enumerated() {
                    state.waiting.append(Waiting(request: request, kind: kind, complete: { wait.set(index, $0) }))
                }
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if starts { Task { await self.writeUntilEmpty() } }
        }
    }

    /// Records fires in the next transaction, beside the requests waiting for it, and returns once that transaction is
    /// committed; when nothing is being written, at once, in the caller's task.
    ///
    /// ```swift
    /// let historyIDs = try await commits.record(fires)   // durable now
    /// ```
    /// - Returns: The fires' history entries, in order (``NotificationStore/completeFires(_:)``).
    /// - Throws: What the store threw for the fires: then none of them is recorded (the requests of the same
    ///   transaction are stored or fail on their own).
    func record(_ fires: [FireCompletion]) async throws -> [Int64] {
        guard !fires.isEmpty else { return [] }
        let alone = state.withLock { state in
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if alone {
            // As a lone add (writeAlone): no hand-over to a task of the group commit's for a transaction of its own.
            let outcome = await writeWithFires(fires, [], nil)
            let handsOver = state.withLock { state in
                let waits = !state.waiting.isEmpty || !state.waitingFires.isEmpty
                if !waits { state.writing = false }
                return waits
            }
            if handsOver { Task { await self.writeUntilEmpty() } }
            return try outcome.historyIDs.get()
        }
        return try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waitingFires.append(WaitingFires(fires: fires, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
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
    private func writeAlone(_ request: PendingRequest, kind: Kind) async throws -> Stored {
        let result: Result<PendingBatchInsertion, any Error>
        do {
            result = .success(try await write([request], kind))
        } catch {
            result = .failure(error)
        }
        let handsOver = state.withLock { state in
            let waits = !state.waiting.isEmpty || !state.waitingFires.isEmpty
            if !waits { state.writing = false }
            return waits
        }
        if handsOver { Task { await self.writeUntilEmpty() } }
        let inserted = try result.get()
        try Self.checkAllowed(request, kind: kind, inserted)
        return Stored(
            discarded: inserted.discarded.filter { $0.appID == request.appID },
            claimed: inserted.claimed.last { Self.key($0) == Self.key(request) })
    }

    /// How many adds wait for the next transaction (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// How many recordings of fires wait for the next transaction (for tests).
    var waitingRecordings: Int { state.withLock { $0.waitingFires.count } }

    /// A request's app and identifier, which one pending request at a time has.
    private static func key(_ request: PendingRequest) -> String { request.appID + "\u{0}" + request.identifier }

    private static func checkAllowed(_ request: PendingRequest, kind: Kind, _ inserted: PendingBatchInsertion) throws {
        guard kind.refusesDenied, inserted.deniedAppIDs.contains(request.appID) else { return }
        throw EngineError(.notificationsNotAllowed, "notifications are not allowed for \(request.appID)")
    }

    /// Writes what waits, one transaction at a time, until nothing does: the leading run of waiting adds of the same
    /// kind, with every recording of fires waiting (recorded first, in the order they were handed over).
    ///
    /// Tried and reverted (session 12): this task going on in the store's writer thread after each commit (a task
    /// executor running its jobs where they are resumed), answering the adds there and handing the next group over
    /// without a pool thread. The daemon's context switches per add fell (×0.86 at 8 clients), but groups were taken a
    /// little earlier, so more transactions per add: CPU per add ×1.06 at 64 clients, no rate gain (docs/benchmarks.md,
    /// "Daemon add, the p50 gap").
    private func writeUntilEmpty() async {
        while true {
            let (batch, recordings) = state.withLock { state in
                // The leading run of waiting adds of the same kind.
                let kind = state.waiting.first?.kind
                let count = state.waiting.firstIndex { $0.kind != kind } ?? state.waiting.count
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                let recordings = state.waitingFires
                state.waitingFires = []
                if batch.isEmpty && recordings.isEmpty {
                    state.writing = false
                } else if !batch.isEmpty {
                    state.lastBatchCount = batch.count
                }
                return (batch, recordings)
            }
            guard !batch.isEmpty || !recordings.isEmpty else { return }
            guard !recordings.isEmpty else {
                let inserted: Result<PendingBatchInsertion, any Error>
                do {
                    inserted = .success(try await write(batch.map(\.request), batch[0].kind))
                } catch {
                    inserted = .failure(error)
                }
                Self.resume(batch, with: inserted)
                continue
            }
            let outcome = await writeWithFires(
                recordings.flatMap(\.fires), batch.map(\.request), batch.first?.kind)
            Self.resume(batch, with: outcome.insertion)
            switch outcome.historyIDs {
            case .success(let identifiers):
                var rest = identifiers[...]
                for recording in recordings {
                    recording.continuation.resume(returning: Array(rest.prefix(recording.fires.count)))
                    rest = rest.dropFirst(recording.fires.count)
                }
            case .failure(let error):
                for recording in recordings { recording.continuation.resume(throwing: error) }
            }
        }
    }

    /// Resumes the adds of a transaction with what it did: each gets the requests of its app the cap discarded (the
    /// last add of the app in it; the others none) and its request as claimed, or the error.
    private static func resume(_ batch: [Waiting], with result: Result<PendingBatchInsertion, any Error>) {
        guard !batch.isEmpty else { return }
        let inserted: PendingBatchInsertion
        switch result {
        case .success(let value):
            inserted = value
        case .failure(let error):
            for waiting in batch { waiting.complete(.failure(error)) }
            return
        }
        // The common case (every push of an APNs batch): nothing discarded or refused, and each request stored (and,
        // for a claiming kind, claimed) in order, so each gets its own row without the lookups below.
        let claimedInOrder =
            inserted.claimed.isEmpty
            || (inserted.claimed.count == batch.count
                && zip(batch, inserted.claimed).allSatisfy { waiting, claimed in
                    waiting.request.appID == claimed.appID && waiting.request.identifier == claimed.identifier
                })
        if inserted.discarded.isEmpty, inserted.deniedAppIDs.isEmpty, claimedInOrder {
            for (index, waiting) in batch.enumerated() {
                waiting.complete(
                    .success(Stored(discarded: [], claimed: inserted.claimed.isEmpty ? nil : inserted.claimed[index])))
            }
            return
        }
        let byApp = Dictionary(grouping: inserted.discarded, by: \.appID)
        let lastOfApp = Dictionary(batch.indices.map { (batch[$0].request.appID, $0) }) { _, later in later }
        // A claimed request goes to the last waiting request with its app and identifier (an earlier one was replaced
        // by it in the same transaction).
        let claimed = Dictionary(inserted.claimed.map { (Self.key($0), $0) }) { _, later in later }
        let lastOfKey = Dictionary(batch.indices.map { (Self.key(batch[$0].request), $0) }) { _, later in later }
        for (index, waiting) in batch.enumerated() {
            let app = waiting.request.appID
            do {
                try Self.checkAllowed(waiting.request, kind: waiting.kind, inserted)
                let key = Self.key(waiting.request)
                waiting.complete(
                    .success(
                        Stored(
                            discarded: lastOfApp[app] == index ? byApp[app] ?? [] : [],
                            claimed: lastOfKey[key] == index ? claimed[key] : nil)))
            } catch {
                waiting.complete(.failure(error))
            }
        }
    }
}
