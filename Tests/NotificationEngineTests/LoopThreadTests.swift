import Foundation
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

@testable import NotificationEngine

#if os(Linux)
import Glibc
#endif

/// The delivery loop runs on a thread of its own (`LoopExecutor`), optionally at a real-time priority.
@Suite("The delivery loop's thread", .timeLimit(.minutes(1)))
struct LoopThreadTests {
    /// Records, for each presentation, the name and scheduling policy of the thread that presented it.
    final class ThreadRecordingPresenter: NotificationPresenter {
        let name = "thread-recording"
        let seen = Mutex<[(thread: String, policy: Int32)]>([])

        func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
            let thread = LoopThreadTests.threadName()
            let policy = sched_getscheduler(0)
            seen.withLock { $0.append((thread, policy)) }
        }

        func withdraw(appID: String, identifiers: [String]) async {}
        func badgeDidChange(appID: String, count: Int) async {}
    }

    /// The calling thread's name as the kernel knows it.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func spec(_ id: String, in seconds: TimeInterval) -> RequestSpec {
        RequestSpec(identifier: id, content: NotificationPayload(), trigger: .timeInterval(seconds, repeats: false))
    }

    @Test("a request due is presented from the loop's own thread")
    func presentsOnTheLoopThread() async throws {
        let presenter = ThreadRecordingPresenter()
        let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
        let scheduler = NotificationScheduler(
            store: try SQLiteNotificationStore(), clock: clock, presenter: presenter,
            configuration: EngineConfiguration(pendingCap: nil))
        try await scheduler.setAuthorization(appID: "com.example.app", status: .authorized, options: [.alert])
        try await scheduler.add(Self.spec("soon", in: 60), appID: "com.example.app")
        let loop = Task { await scheduler.run() }
        defer { loop.cancel() }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: 60)
        while presenter.seen.withLock({ $0.isEmpty }) { await Task.yield() }
        let seen = try #require(presenter.seen.withLock { $0.first })
        #expect(seen.thread == "unotify-loop")
        #expect(seen.policy == SCHED_OTHER)
    }

    @Test("with a real-time priority asked for, the loop's thread runs under SCHED_FIFO when the system allows it")
    func realtimeWhenAllowed() async throws {
        let presenter = ThreadRecordingPresenter()
        let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
        var configuration = EngineConfiguration(pendingCap: nil)
        configuration.loopRealtimePriority = 10
        let scheduler = NotificationScheduler(
            store: try SQLiteNotificationStore(), clock: clock, presenter: presenter, configuration: configuration)
        try await scheduler.setAuthorization(appID: "com.example.app", status: .authorized, options: [.alert])
        // Whether this process may: the same call on a thread of the test's own.
        let allowed = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: ThreadPriority.makeCurrentThreadRealtime(10))
            }.start()
        }
        try await scheduler.add(Self.spec("soon", in: 60), appID: "com.example.app")
        let loop = Task { await scheduler.run() }
        defer { loop.cancel() }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: 60)
        while presenter.seen.withLock({ $0.isEmpty }) { await Task.yield() }
        let seen = try #require(presenter.seen.withLock { $0.first })
        #expect(seen.thread == "unotify-loop")
        #expect(seen.policy == (allowed ? SCHED_FIFO : SCHED_OTHER))
    }

    @Test("within the loop, the system clock's sleep wakes the loop's thread at the deadline; cancelled, it throws")
    func systemClockSleepsOnTheLoopThread() async throws {
        let executor = LoopExecutor(name: "unotify-loop-t")
        let (thread, slept, cancelled) = await executor.run { () -> (String, TimeInterval, Bool) in
            let start = Date()
            try? await SystemNotificationClock().sleep(until: start.addingTimeInterval(0.05))
            let slept = Date().timeIntervalSince(start)
            let thread = LoopThreadTests.threadName()
            let sleeper = Task(executorPreference: LoopExecutor.current) {
                try await SystemNotificationClock().sleep(until: Date().addingTimeInterval(3_600))
            }
            sleeper.cancel()
            let cancelled = await (try? sleeper.value) == nil
            return (thread, slept, cancelled)
        }
        #expect(thread == "unotify-loop-t")
        #expect(slept >= 0.05)
        #expect(cancelled)
    }
}
