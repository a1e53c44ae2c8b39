/// Runs each job of the tasks that prefer it at once, on the thread that enqueues it: the thread that starts the task,
/// or the thread that resumes it.
///
/// The group commit's task (``GroupCommit``) prefers it. Its transactions end on the store's writer thread, which
/// resumes the task; on the global concurrency pool that resumption waited for a pool thread to wake (a median of
/// 51–58 µs per group at 64 clients, `unotifyd-bench` figure 2 under load), and the next group's transaction, handed
/// from that pool thread to the writer, woke the writer again, while the disk idled. Here the task goes on in the
/// writer's own thread: it answers the adds of the transaction and hands the next group to the writer from there,
/// and the writer's queue runs it next without sleeping. Started from an add, the task takes its first group in the
/// add's thread instead of waking a pool thread for it.
///
/// Only for tasks whose every step is short and never blocks, whichever thread resumes them: a job runs in the
/// middle of the resuming thread's own work (the writer's transaction callback, a connection's event loop).
///
/// ```swift
/// Task(executorPreference: InlineTaskExecutor.shared) { await commits.writeUntilEmpty() }
/// ```
final class InlineTaskExecutor: TaskExecutor {
    static let shared = InlineTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
