import Synchronization

/// Races an answer against a fallback without waiting for the loser, so an app that never answers cannot stall
/// the engine (a task group would wait for every child).
public enum FirstAnswer {
    /// Returns whichever of `answer` and `fallback` finishes first, cancelling the other.
    public static func race<T: Sendable>(
        _ answer: @escaping @Sendable () async -> T, orElse fallback: @escaping @Sendable () async -> T
    ) async -> T {
        let resumed = Mutex(false)
        let tasks = Mutex<[Task<Void, Never>]>([])
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let finish: @Sendable (T) -> Void = { value in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                continuation.resume(returning: value)
                for task in tasks.withLock({ $0 }) { task.cancel() }
            }
            // Within the delivery loop, on the loop's thread (`LoopExecutor`): a fallback that sleeps on the system clock
            // then wakes that thread alone.
            let loop = LoopExecutor.current
            let started = [
                Task(executorPreference: loop) { finish(await answer()) },
                Task(executorPreference: loop) { finish(await fallback()) },
            ]
            tasks.withLock { $0 = started }
            if resumed.withLock({ $0 }) { for task in started { task.cancel() } }
        }
    }
}
