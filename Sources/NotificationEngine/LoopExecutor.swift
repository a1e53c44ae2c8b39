import Dispatch
import Foundation
import Synchronization

/// A thread of its own for the delivery loop, with a wall-clock timer that wakes that thread directly.
///
/// On the concurrency pool, a `Task.sleep` ends in two thread wake-ups: Dispatch's timer thread wakes when the
/// deadline passes and hands the task to a pool thread, which the kernel then wakes too. Each waits for a core when the
/// machine is busy: a trace of `unotifyd-bench` figure 6 (an import and re-plans in the same process, another
/// process on the other core) showed the timer thread waiting 10.6 ms for a core and the pool thread then 1.7–14.8 ms
/// more (docs/benchmarks.md, "The late tail: what a late delivery waits for"). Here the loop's tasks run on one thread
/// that waits (`LoopWaiter`) for a job or for the next timer's deadline: the kernel wakes this thread at the deadline,
/// and it resumes the sleeping task itself. The deadlines are wall-clock instants, on a `CLOCK_REALTIME` timer, so a
/// sleep ends at its wall time after a suspend or a set clock too (the semaphore's monotonic timeout used before
/// stopped while the machine was suspended). That alone did not shorten the late tail (the one wake-up left
/// still waits for a core); a thread of the loop's own is what lets it run under `SCHED_FIFO`
/// (``EngineConfiguration/loopRealtimePriority``), which did: every delivery within 4.6 ms in six runs.
///
/// ``NotificationScheduler/run()`` runs its loop inside ``run(_:)``: the loop's task prefers this executor (the
/// scheduler is a default actor, so its isolated code runs here too while the loop holds it), and
/// `SystemNotificationClock.sleep(until:)` called within it uses ``sleep(until:)``. Other clocks (the manual clock of
/// tests) sleep as they always do, and their resumed tasks come back to this thread.
///
/// A job must not block waiting for another job of this executor: there is one thread.
///
/// ```swift
/// await LoopExecutor(name: "unotify-loop").run {
///     try? await SystemNotificationClock().sleep(until: Date().addingTimeInterval(1))  // wakes this thread
/// }
/// ```
final class LoopExecutor: TaskExecutor, Sendable {
    /// The executor whose ``run(_:)`` the current task is in, if any.
    @TaskLocal static var current: LoopExecutor?

    /// What the thread works on, under one lock.
    private struct State {
        /// Jobs waiting for the thread, oldest first, from index `next` on.
        var jobs: [UnownedJob] = []
        var next = 0
        /// Sleeping tasks by id: the wall-clock instant (nanoseconds since 1970) they wake at, and their continuation.
        var timers: [UInt64: (deadline: Int64, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextTimerID: UInt64 = 0
        /// Set once ``run(_:)``'s body has returned: the thread ends when nothing is left to do.
        var stopping = false
        /// Set once the thread has ended: jobs go to the global executor, sleeps to `Task.sleep`.
        var ended = false
        /// Set while the thread waits, or is about to, with nothing to do: whoever gives it work then wakes it (and
        /// clears this, so that one wake-up is sent per wait).
        var waiting = false
    }

    private let state = Mutex(State())
    /// What the thread waits on: a wake-up (a job queued, a timer added, the end) or the next timer's deadline.
    private let waiter = LoopWaiter()

    /// Whether the thread took the real-time priority asked for; `nil` until it has tried (or when none was asked).
    private let raised = Mutex<Bool?>(nil)
    /// Signalled once the thread has tried to raise its priority.
    private let started = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name`.
    /// - Parameters:
    ///   - realtimePriority: A `SCHED_FIFO` priority for the thread (``EngineConfiguration/loopRealtimePriority``),
    ///     or `nil` to keep the process's.
    ///   - timeSlice: The scheduler time slice the thread asks for when it keeps the normal policy
    ///     (``EngineConfiguration/loopTimeSlice``), or `nil` for the kernel's default.
    init(name: String, realtimePriority: Int32? = nil, timeSlice: TimeInterval? = nil) {
        Thread { [self] in
            Thread.current.name = name
            ThreadName.setCurrent(name)
            if let realtimePriority {
                let taken = ThreadPriority.makeCurrentThreadRealtime(realtimePriority)
                raised.withLock { $0 = taken }
            }
            if let timeSlice {
                ThreadPriority.requestCurrentThreadSlice(timeSlice)  // nothing for a real-time thread
            }
            started.signal()
            serve()
        }.start()
    }

    /// Whether the thread runs at the real-time priority asked for (`false` when none was asked or it was refused).
    func raisedPriority() async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                started.wait()
                started.signal()
                continuation.resume(returning: raised.withLock { $0 } ?? false)
            }
        }
    }

    /// Runs `body` with this executor as its task's preference and as ``current``, then lets the thread end once
    /// nothing is left for it.
    /// - Parameter body: The work whose jobs (and whose child tasks' jobs) run on this executor's thread.
    /// - Returns: What `body` returned.
    func run<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async -> T
    ) async -> T {
        defer { stop() }
        return await Self.$current.withValue(self) {
            await withTaskExecutorPreference(self, isolation: isolation) { await body() }
        }
    }

    /// Suspends the calling task until the wall clock reaches `deadline`, waking this executor's thread at that
    /// instant (after a suspend or a set clock too); the task then resumes on its own executor (this one, for the
    /// loop's tasks).
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws {
        let wallDeadline = LoopWaiter.wallNanoseconds(deadline)
        let id = state.withLock { state in
            defer { state.nextTimerID += 1 }
            return state.nextTimerID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case timed(wake: Bool), cancelled, elsewhere }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if state.ended { return .elsewhere }
                    state.timers[id] = (wallDeadline, continuation)
                    defer { state.waiting = false }
                    return .timed(wake: state.waiting)
                }
                switch outcome {
                case .timed(let wake): if wake { waiter.wake() }  // the waiting thread re-arms its timer
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .elsewhere:
                    // The thread has ended (a task that outlived run(_:)): sleep on the pool.
                    let interval = deadline.timeIntervalSinceNow
                    Task {
                        do {
                            // At most a century (`Date.distantFuture` would overflow the nanoseconds).
                            let seconds = min(interval, 100 * 366 * 86_400)
                            if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
            }
        } onCancel: {
            let timer = state.withLock { $0.timers.removeValue(forKey: id) }
            timer?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Queues a job of a task that prefers this executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (queued, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.ended else { return (false, false) }
            state.jobs.append(job)
            defer { state.waiting = false }
            return (true, state.waiting)
        }
        if queued {
            if wake { waiter.wake() }
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// Lets the thread end once no job and no timer is left.
    private func stop() {
        let wake = state.withLock { state -> Bool in
            state.stopping = true
            defer { state.waiting = false }
            return state.waiting
        }
        if wake { waiter.wake() }
    }

    /// The descriptor of the thread's wall-clock timer, if it has one (for tests).
    var timerDescriptor: Int32? { waiter.timerDescriptor }

    /// The thread: runs the queued jobs, resumes the sleepers whose deadline has passed, then waits for the next job
    /// or the next deadline.
    private func serve() {
        while true {
            while let job = takeJob() { job.runSynchronously(on: asUnownedTaskExecutor()) }
            let now = LoopWaiter.nowWallNanoseconds()
            let (due, next, ended, idle) = state.withLock { state in
                var due: [CheckedContinuation<Void, any Error>] = []
                var next: Int64?
                for (id, timer) in state.timers {
                    if timer.deadline <= now {
                        due.append(timer.continuation)
                        state.timers[id] = nil
                    } else {
                        next = min(next ?? .max, timer.deadline)
                    }
                }
                let idle = due.isEmpty && state.next == state.jobs.count
                if idle, state.stopping, state.timers.isEmpty { state.ended = true }
                // From here on, a job queued or a timer added wakes the wait below (or makes it return at once).
                state.waiting = idle && !state.ended
                return (due, next, state.ended, idle)
            }
            if ended { return }
            if !due.isEmpty {
                for continuation in due { continuation.resume() }
                continue
            }
            if idle {
                waiter.wait(until: next)
                state.withLock { $0.waiting = false }
            }
        }
    }

    /// The oldest queued job, if any.
    private func takeJob() -> UnownedJob? {
        state.withLock { state in
            guard state.next < state.jobs.count else { return nil }
            let job = state.jobs[state.next]
            state.next += 1
            if state.next == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: true)
                state.next = 0
            }
            return job
        }
    }
}
