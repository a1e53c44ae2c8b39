import Foundation
import Logging
import Synchronization

/// Keeps the claims an engine still holds alive: while any is held (claimed and not yet recorded or released: being
/// presented, retried with backoff, waiting in the recording queue, or held ahead of its due instant), a task of its
/// own renews all of them every third of the lease on the injected clock, in one store call
/// (``NotificationStore/renewClaims(revisions:leaseUntil:)``).
///
/// So a live engine that is slow (a presenter in backoff, a loaded machine, a long recording queue) keeps its fires,
/// and another engine on the same store delivers one again only when this engine died or could not reach the store
/// for longer than a lease. The task runs only while something is held: an idle engine adds no wake-ups. It is off
/// the delivery loop's path: a slow renewal delays no presentation.
///
/// A renewal that fails (the database is down) is logged and tried again a third of a lease later; the claims then
/// expire as without renewal (the fire is delivered again: at least once). A claim another engine took over after it
/// expired is logged and no longer renewed.
///
/// ```swift
/// let renewal = ClaimRenewal(store: store, clock: clock, lease: 60, logger: logger)
/// renewal.hold(claimed.map(\.revision))
/// // ... present, record ...
/// renewal.drop(claimed.map(\.revision))
/// ```
final class ClaimRenewal: Sendable {
    private struct State {
        /// Each held revision, with how many holders it has (a request claimed again by this engine after its lease
        /// ended counts twice until both are done).
        var held: [Int64: Int] = [:]
        /// The renewing task, while something is held.
        var task: Task<Void, Never>?
        /// Tells a task that was cancelled (nothing held) from the one started after it.
        var generation: UInt64 = 0
    }

    private let store: any NotificationStore
    private let clock: any NotificationClock
    private let lease: TimeInterval
    private let logger: Logger
    private let observer: (@Sendable (ClaimRenewalEvent) -> Void)?
    private let state = Mutex(State())

    /// Creates the renewal of one engine's claims; nothing runs until something is held.
    ///
    /// - Parameters:
    ///   - store: Where the claims are.
    ///   - clock: The engine's clock: renewals happen every `lease / 3` on it.
    ///   - lease: How long a claim lasts (``EngineConfiguration/claimLease``); 0 or less renews nothing.
    ///   - logger: Where failed renewals and lost claims are logged.
    ///   - observer: Told of the same (``EngineConfiguration/claimRenewalObserver``).
    init(
        store: any NotificationStore, clock: any NotificationClock, lease: TimeInterval, logger: Logger,
        observer: (@Sendable (ClaimRenewalEvent) -> Void)? = nil
    ) {
        self.store = store
        self.clock = clock
        self.lease = lease
        self.logger = logger
        self.observer = observer
    }

    /// The interval between two renewals: a third of the lease, so a renewal that is late by a whole interval (a
    /// loaded machine) still comes before the lease ends.
    var interval: TimeInterval { lease / 3 }

    /// How many distinct revisions are held (for tests).
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Whether the renewing task runs (for tests: it must not while nothing is held).
    var isRenewing: Bool { state.withLock { $0.task != nil } }

    /// Starts renewing the claims on these revisions (just claimed by the engine).
    func hold(_ revisions: [Int64]) {
        guard !revisions.isEmpty, lease > 0, lease.isFinite else { return }
        state.withLock { state in
            for revision in revisions { state.held[revision, default: 0] += 1 }
            guard state.task == nil else { return }
            state.generation &+= 1
            let generation = state.generation
            state.task = Task { [self] in await renewWhileHeld(generation: generation) }
        }
    }

    /// Stops renewing the claims on these revisions (recorded, released, or left to expire); the task ends when
    /// nothing is held any more.
    ///
    /// A renewal already under way when a claim is dropped still extends it: a claim left to expire (a presenter that
    /// gave up) then ends at most one lease after it was dropped, not one lease after it was taken.
    func drop(_ revisions: [Int64]) {
        guard !revisions.isEmpty else { return }
        let ended = state.withLock { state -> Task<Void, Never>? in
            for revision in revisions {
                guard let count = state.held[revision] else { continue }
                state.held[revision] = count > 1 ? count - 1 : nil
            }
            guard state.held.isEmpty, let task = state.task else { return nil }
            state.task = nil
            return task
        }
        ended?.cancel()
    }

    /// Renews everything held every ``interval`` until nothing is held (the task is cancelled then).
    ///
    /// The renewals keep to their schedule (the first one a third of a lease after the task started, then every third),
    /// whenever the task goes back to sleep; one that is overdue (the machine was suspended) happens at once, once.
    private func renewWhileHeld(generation: UInt64) async {
        var deadline = clock.now.addingTimeInterval(interval)
        while !Task.isCancelled {
            do { try await clock.sleep(until: deadline) } catch { return }
            deadline = max(deadline, clock.now).addingTimeInterval(interval)
            let revisions = state.withLock { state in
                state.generation == generation ? Array(state.held.keys) : []
            }
            guard !revisions.isEmpty else { return }
            let leaseUntil = clock.now.addingTimeInterval(lease)
            let renewed: [Int64]
            do {
                renewed = try await store.renewClaims(revisions: revisions, leaseUntil: leaseUntil)
            } catch {
                logger.error(
                    """
                    could not renew claims; unless a later renewal succeeds in time they expire and another engine \
                    delivers them again
                    """,
                    metadata: ["count": "\(revisions.count)", "error": "\(error)"])
                observer?(.renewalFailed(claims: revisions.count))
                continue
            }
            guard forgetLost(Set(revisions).subtracting(renewed), generation: generation) else { return }
        }
    }

    /// Stops renewing claims the store no longer gave this engine, unless they were dropped meanwhile (recorded while
    /// the renewal ran): another engine took them over after their lease ended.
    /// - Returns: Whether something is still held (otherwise the task ends here).
    private func forgetLost(_ missing: Set<Int64>, generation: UInt64) -> Bool {
        let (lost, holding) = state.withLock { state -> (Set<Int64>, Bool) in
            guard state.generation == generation, state.task != nil else { return ([], false) }
            let lost = missing.filter { state.held[$0] != nil }
            for revision in lost { state.held[revision] = nil }
            if state.held.isEmpty { state.task = nil }
            return (lost, !state.held.isEmpty)
        }
        if !lost.isEmpty {
            logger.warning(
                "claims were taken over by another engine after their lease ended; they may be delivered twice",
                metadata: ["revisions": "\(lost.sorted())"])
            observer?(.takenOver(claims: lost.count))
        }
        return holding
    }
}
