import Foundation
import Synchronization

/// A few threads at a lower OS priority for bulk CPU work: the checks and encoding of a large batch add, an import.
///
/// The delivery loop's timer resumes on the concurrency pool, whose threads run at the process's priority. Bulk work
/// there, or on Dispatch's threads at the same priority, shares the cores fairly with a waking timer, which then waits
/// its turn: measured on two cores, a 20 ms sleep resumed p99 18–41 ms late while four CPU-bound tasks ran on the
/// pool, and 3–8 ms late with the same work on these threads (docs/benchmarks.md, "The late tail at low
/// priority"). Each thread lowers its own nice value to the process's plus ``niceIncrement`` when it starts (Linux
/// keeps one per thread), so the kernel runs a waking thread of normal priority before them.
///
/// Work that must not wait behind other writers does not belong here, nor does anything holding a lock others wait
/// for: the store's writer (GRDB's queue) keeps its priority, or a claim would wait for a low-priority transaction.
/// A job must not block waiting for another job of this executor (there are only ``threadCount`` threads).
///
/// It is also a `TaskExecutor`: a task started with it as its preference runs its nonisolated code on these threads.
///
/// ```swift
/// // CPU-bound work, off the concurrency pool, at low priority:
/// let total = await BulkExecutor.shared.run { (1...1_000_000).reduce(0, +) }
/// // The same, in pieces across the threads, results in index order:
/// let parts = try await BulkExecutor.shared.perform(iterations: 4) { part in part * 10 }
/// // A whole task's nonisolated code on these threads:
/// let importing = Task(executorPreference: BulkExecutor.shared) { try await scheduler.add(contentsOf: batch) }
/// ```
public final class BulkExecutor: TaskExecutor, Sendable {
    /// The process's bulk threads: one per core (at most 8), at the process's nice value plus 10, started on first
    /// use and kept for the life of the process.
    public static let shared = BulkExecutor(
        name: "unotify-bulk", threads: min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)), niceIncrement: 10)

    /// How many threads run the jobs.
    public let threadCount: Int
    /// How much lower than the process's the threads' priority is (nice value; the result is at most 19).
    public let niceIncrement: Int32

    /// The jobs waiting for a thread from index `next` on, oldest first; a job taken leaves `nil` (not to keep what
    /// it captured) until the taken front is dropped.
    private let jobs = Mutex<(queue: [(@Sendable () -> Void)?], next: Int)>(([], 0))
    /// One signal per job queued.
    private let queued = DispatchSemaphore(value: 0)

    /// Starts `threads` threads named `name-0`, `name-1`, ...; they run until the process ends.
    init(name: String, threads: Int, niceIncrement: Int32) {
        threadCount = max(1, threads)
        self.niceIncrement = niceIncrement
        for index in 0..<threadCount {
            Thread { [self] in
                // Named from the thread itself: Foundation on Linux names the system thread only then.
                Thread.current.name = "\(name)-\(index)"
                ThreadName.setCurrent("\(name)-\(index)")
                ThreadPriority.lowerCurrentThread(by: niceIncrement)
                serve()
            }.start()
        }
    }

    /// Runs `work` on one of the threads and returns its result; the calling task waits without holding a thread.
    /// - Parameter work: CPU-bound work; it must not wait for another job of this executor.
    /// - Returns: What `work` returned.
    ///
    /// ```swift
    /// let encoded = await BulkExecutor.shared.run { requests.map(encode) }
    /// ```
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    /// Runs throwing `work` on one of the threads and returns its result or rethrows its error.
    /// - Parameter work: CPU-bound work; it must not wait for another job of this executor.
    /// - Returns: What `work` returned.
    /// - Throws: What `work` threw.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `body` for every index of `0..<iterations`, spread over the threads, and returns the results in index
    /// order (`DispatchQueue.concurrentPerform` at this executor's priority, without blocking the caller).
    /// - Parameters:
    ///   - iterations: How many pieces.
    ///   - body: One piece of the work, given its index; it must not wait for another job of this executor.
    /// - Returns: `body`'s results, in index order.
    /// - Throws: The error of the lowest-numbered piece that threw (every piece runs).
    ///
    /// ```swift
    /// let chunks = try await BulkExecutor.shared.perform(iterations: 3) { part in try encode(slices[part]) }
    /// ```
    public func perform<T: Sendable>(iterations: Int, _ body: @escaping @Sendable (Int) throws -> T) async throws -> [T] {
        guard iterations > 0 else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            let pieces = Pieces<T>(count: iterations)
            for index in 0..<iterations {
                submit {
                    let result = Result { try body(index) }
                    if let all = pieces.finish(index, with: result) {
                        continuation.resume(with: Result { try all.map { try $0.get() } })
                    }
                }
            }
        }
    }

    /// Runs a job of a task that prefers this executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Queues `work` for the next free thread.
    private func submit(_ work: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.queue.append(work) }
        queued.signal()
    }

    /// A thread's loop: takes the oldest job and runs it, forever.
    private func serve() {
        while true {
            queued.wait()
            let work = jobs.withLock { jobs -> (@Sendable () -> Void)? in
                let work = jobs.queue[jobs.next]
                jobs.queue[jobs.next] = nil
                jobs.next += 1
                if jobs.next == jobs.queue.count {
                    jobs.queue.removeAll(keepingCapacity: true)
                    jobs.next = 0
                } else if jobs.next >= 64, jobs.next * 2 >= jobs.queue.count {
                    jobs.queue.removeFirst(jobs.next)
                    jobs.next = 0
                }
                return work
            }
            work?()
        }
    }
}

/// The results of ``BulkExecutor/perform(iterations:_:)``'s pieces as they finish.
private final class Pieces<T: Sendable>: Sendable {
    private let state: Mutex<(results: [Result<T, any Error>?], remaining: Int)>

    init(count: Int) {
        state = Mutex((Array(repeating: nil, count: count), count))
    }

    /// Records piece `index`'s result; returns every result, in index order, to the caller that finished the last.
    func finish(_ index: Int, with result: Result<T, any Error>) -> [Result<T, any Error>]? {
        state.withLock { state in
            state.results[index] = result
            state.remaining -= 1
            return state.remaining == 0 ? state.results.map { $0! } : nil
        }
    }
}
