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
        let seen = Mutex<[(thread: String, policy: Int32, slice: Double?)]>([])

        func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
            let thread = LoopThreadTests.threadName()
            let policy = sched_getscheduler(0)
            let slice = ThreadPriority.currentThreadSlice
            seen.withLock { $0.append((thread, policy, slice)) }
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

    @Test("the loop's thread asks the kernel for the configured time slice, where the kernel takes one")
    func shortTimeSlice() async throws {
        let presenter = ThreadRecordingPresenter()
        let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
        var configuration = EngineConfiguration(pendingCap: nil)
        #expect(configuration.loopTimeSlice == 0.0001)
        configuration.loopTimeSlice = 0.0002
        let scheduler = NotificationScheduler(
            store: try SQLiteNotificationStore(), clock: clock, presenter: presenter, configuration: configuration)
        try await scheduler.setAuthorization(appID: "com.example.app", status: .authorized, options: [.alert])
        // Whether this kernel takes a slice (Linux 6.12 and later): the same request on a thread of the test's own.
        let supported = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: ThreadPriority.requestCurrentThreadSlice(0.0002) != nil)
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
        #expect(seen.policy == SCHED_OTHER)
        #expect(seen.slice == (supported ? 0.0002 : nil))
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

    @Test("within the loop, a sleep waits on a wall-clock timer armed at its deadline (late after no suspend or clock set)")
    func sleepsOnTheWallClock() async throws {
        #if os(Linux)
        let executor = LoopExecutor(name: "unotify-loop-t")
        let timer = try #require(executor.timerDescriptor)
        let deadline = Date().addingTimeInterval(3_600)
        let info = await executor.run { () -> [String: String] in
            let sleeper = Task(executorPreference: LoopExecutor.current) {
                try await SystemNotificationClock().sleep(until: deadline)
            }
            // Off the loop's thread, which arms the timer once it has nothing else to do.
            let info = await Task.detached { () -> [String: String] in
                for _ in 0..<5_000 {
                    let info = Self.timerInfo(timer)
                    if let value = info["it_value"], value != "(0, 0)" { return info }
                    usleep(1_000)
                }
                return Self.timerInfo(timer)
            }.value
            sleeper.cancel()
            _ = try? await sleeper.value
            return info
        }
        // CLOCK_REALTIME (0), TFD_TIMER_ABSTIME (1): the kernel expires it when the wall clock reaches the deadline,
        // which it keeps across a suspend and a clock set; the time left (`it_value`) is about the hour.
        #expect(info["clockid"] == "0")
        #expect(info["settime flags"] == "01")
        let left = try #require(info["it_value"].flatMap { Double($0.dropFirst().prefix { $0 != "," }) })
        #expect(left > 3_500 && left <= 3_600)
        #endif
    }

    @Test("the loop's waiter: a wake-up sent before the wait ends the wait at once")
    func wakeBeforeWait() {
        let waiter = LoopWaiter()
        waiter.wake()
        waiter.wait(until: nil)  // returns: the wake-up was kept
        waiter.wake()
        waiter.wait(until: LoopWaiter.wallNanoseconds(Date().addingTimeInterval(3_600)))
    }

    /// The fields of `/proc/self/fdinfo/<descriptor>` (a timerfd's: clockid, ticks, settime flags, it_value, ...).
    static func timerInfo(_ descriptor: Int32) -> [String: String] {
        let text = (try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}
