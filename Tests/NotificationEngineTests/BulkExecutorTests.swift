#if os(Linux)
import Foundation
import Glibc
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// The bulk threads (``BulkExecutor``): bulk CPU work runs on them, at the process's nice value plus 10, so a waking
/// delivery loop on the concurrency pool comes first. The nice value is read with `getpriority` inside the work itself;
/// that a batch add's work runs there is read from the threads' CPU time in `/proc/self/task`.
@Suite("Bulk work runs on low-priority threads", .timeLimit(.minutes(5)))
struct BulkExecutorTests {
    /// The nice value bulk threads should have in this process.
    static var expectedNice: Int32 { min(19, ThreadPriority.processNice + BulkExecutor.shared.niceIncrement) }

    /// What a piece of work saw of the thread it ran on.
    struct Seen: Sendable, Hashable {
        var nice: Int32
        var name: String
        var tid: Int32

        static var here: Seen {
            Seen(nice: ThreadPriority.currentNice, name: Thread.current.name ?? "", tid: Self.currentTID)
        }

        /// The calling thread's id (what `/proc/self/task` lists).
        static var currentTID: Int32 {
            Int32(
                (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8))?
                    .split(separator: " ").first.flatMap { Int32($0) } ?? -1)
        }
    }

    @Test("run executes the work on a named bulk thread at the process's nice value plus 10")
    func runIsLowPriority() async throws {
        let caller = Seen.here
        let seen = await BulkExecutor.shared.run { Seen.here }
        #expect(BulkExecutor.shared.niceIncrement == 10)
        #expect(seen.nice == Self.expectedNice)
        #expect(seen.nice > caller.nice || caller.nice == 19)
        #expect(seen.name.hasPrefix("unotify-bulk-"))
        #expect(seen.tid != caller.tid)
        let thrown = await #expect(throws: EngineError.self) {
            try await BulkExecutor.shared.run { () throws -> Int in throw EngineError(.invalidArgument, "no") }
        }
        #expect(thrown?.code == .invalidArgument)
    }

    @Test("perform spreads the pieces over the bulk threads and returns them in index order")
    func performInOrder() async throws {
        let results = try await BulkExecutor.shared.perform(iterations: 200) { index in (index * 3, Seen.here) }
        #expect(results.map(\.0) == (0..<200).map { $0 * 3 })
        #expect(results.allSatisfy { $0.1.nice == Self.expectedNice && $0.1.name.hasPrefix("unotify-bulk-") })
        #expect(Set(results.map(\.1.tid)).count <= BulkExecutor.shared.threadCount)
        #expect(try await BulkExecutor.shared.perform(iterations: 0) { $0 }.isEmpty)
    }

    @Test("perform runs every piece and throws the lowest-numbered piece's error")
    func performThrows() async throws {
        let ran = Ran()
        let error = await #expect(throws: EngineError.self) {
            try await BulkExecutor.shared.perform(iterations: 40) { index -> Int in
                ran.add(index)
                if index % 10 == 7 { throw EngineError(.invalidArgument, "piece \(index)") }
                return index
            }
        }
        #expect(error?.message == "piece 7")
        #expect(ran.all == Set(0..<40))
    }

    @Test("a task that prefers the executor runs its nonisolated code on the bulk threads")
    func taskPreference() async throws {
        let seen = await Task(executorPreference: BulkExecutor.shared) { () -> [Seen] in
            var seen = [Seen.here]
            await Task.yield()
            seen.append(Seen.here)
            seen.append(await Self.nonisolatedStep())
            return seen
        }.value
        #expect(seen.allSatisfy { $0.nice == Self.expectedNice && $0.name.hasPrefix("unotify-bulk-") })
    }

    nonisolated static func nonisolatedStep() async -> Seen { Seen.here }

    @Test("a batch add's checks and the SQLite store's encoding run on the bulk threads")
    func batchAddUsesBulkThreads() async throws {
        let store = try SQLiteNotificationStore()
        let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
        let engine = NotificationScheduler(
            store: store, clock: clock, presenter: RecordingPresenter(), configuration: EngineConfiguration(pendingCap: nil))
        try await engine.setAuthorization(appID: "com.example.bulk", status: .authorized, options: [.alert])
        let batch = Self.batch(6_000, from: 0)
        let before = try Self.bulkCPUSeconds()
        let result = try await engine.add(contentsOf: batch)
        let spent = try Self.bulkCPUSeconds() - before
        #expect(result.added == 6_000)
        #expect(try await store.pendingCount() == 6_000)
        // 6,000 calendar fire dates and encodings cost about 0.45 s of CPU on the bulk threads in a debug build;
        // before them, none of it ran there.
        #expect(spent >= 0.1, "the bulk threads spent \(spent) s of CPU on a batch of 6,000")
        try store.close()
    }

    @Test("the SQLite store encodes a large batch on the bulk threads")
    func storeEncodesOnBulkThreads() async throws {
        let store = try SQLiteNotificationStore()
        let now = Date(timeIntervalSince1970: 1_767_603_600)
        let pending = Self.batch(6_000, from: 0).map { request in
            PendingRequest(appID: request.appID, spec: request.spec, addedAt: now, nextFireDate: now.addingTimeInterval(3_600))
        }
        let before = try Self.bulkCPUSeconds()
        _ = try await store.insertPending(batch: pending, cap: nil, at: now)
        let spent = try Self.bulkCPUSeconds() - before
        #expect(try await store.pendingCount() == 6_000)
        #expect(spent >= 0.05, "the bulk threads spent \(spent) s of CPU encoding 6,000 rows")
        try store.close()
    }

    /// `count` weekly calendar requests of one app, with a body long enough to cost something to encode.
    static func batch(_ count: Int, from first: Int) -> [BatchRequest] {
        var content = NotificationPayload()
        content.title = "Weekly"
        content.body = String(repeating: "a line of text to encode ", count: 8)
        return (first..<first + count).map { index in
            BatchRequest(
                appID: "com.example.bulk",
                spec: RequestSpec(
                    identifier: "r\(index)", content: content,
                    trigger: .calendar(
                        CalendarComponents(DateComponents(hour: index % 24, minute: index % 60, weekday: 1 + index % 7)),
                        repeats: true, matching: .apple)))
        }
    }

    /// The CPU time (user and system) the bulk threads have used so far, from `/proc/self/task/*/stat`.
    static func bulkCPUSeconds() throws -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: open)..<close].hasPrefix("unotify-bulk-")
            else { continue }
            // After the name: state (field 3), ..., utime (14) and stime (15).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            total += (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        }
        return total / ticks
    }
}

/// The indexes of the pieces that ran.
private final class Ran: Sendable {
    private let indexes = Mutex<Set<Int>>([])
    func add(_ index: Int) { indexes.withLock { _ = $0.insert(index) } }
    var all: Set<Int> { indexes.withLock { $0 } }
}
#endif
