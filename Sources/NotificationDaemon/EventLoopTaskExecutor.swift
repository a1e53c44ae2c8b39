import NIOCore

/// Runs the jobs of the tasks that prefer it on one event loop's thread: a connection's reader task
/// (`NotificationDaemon.serve`) uses its channel's loop.
///
/// A line the loop reads then resumes the reader without waking a thread of the concurrency pool, an add runs up to its
/// group commit on the loop, and its reply is written from the loop without the hop (and wake-up) that a write from
/// another thread costs. Only the add's commit leaves the loop's thread. Nothing a task preferring this executor runs
/// may block: the loop's other channels wait meanwhile.
///
/// ```swift
/// try await withTaskExecutorPreference(EventLoopTaskExecutor(channel.eventLoop)) { … }
/// ```
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // From the loop's own thread `execute` only queues the job for this pass: no wake-up.
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
