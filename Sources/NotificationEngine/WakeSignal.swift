import Synchronization

/// Wakes the scheduler's loop when something changed (a request added or removed, the zone changed).
///
/// Each signal bumps a generation; ``wait(after:)`` returns as soon as the generation is past the one the waiter
/// saw, so a signal sent between reading the generation and waiting is never lost.
///
/// A second count, ``heldGeneration``, leaves out the signals of adds that replaced no request the loop holds claimed
/// ahead (``AddState/mayReplaceHeld(appID:identifier:)``): the loop checks its held requests against the store only
/// after a change that may concern them, so that an import's batches, which wake the loop while it works, do not make
/// it read the store again just before a held request's instant.
final class WakeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var heldGeneration: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())

    var generation: UInt64 { state.withLock { $0.generation } }

    /// Counts the signals that may concern the requests the loop holds claimed ahead.
    var heldGeneration: UInt64 { state.withLock { $0.heldGeneration } }

    /// Wakes the loop.
    /// - Parameter touchesHeld: Whether the change may concern a request the loop holds claimed ahead (removed,
    ///   replaced, moved, its app's state changed): `false` only for an add that replaced none of them.
    func signal(touchesHeld: Bool = true) {
        let waiters = state.withLock { state in
            state.generation += 1
            if touchesHeld { state.heldGeneration += 1 }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation is greater than `seen`, or the task is cancelled.
    func wait(after seen: UInt64) async {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.generation > seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
