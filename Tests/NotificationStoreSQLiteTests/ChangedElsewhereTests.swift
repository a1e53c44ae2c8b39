import Foundation
import GRDB
import NotificationEngine
import NotificationModel
@testable import NotificationStoreSQLite
import Synchronization
import Testing

/// `changedElsewhere()`: the store's own commits are not news; another connection's are.
@Suite("Changes by other processes")
struct ChangedElsewhereTests {
    static func request(_ id: String) -> PendingRequest {
        PendingRequest(
            appID: "com.example.app",
            spec: RequestSpec(identifier: id, content: NotificationPayload(), trigger: .timeInterval(60, repeats: false)),
            addedAt: Date(), nextFireDate: Date().addingTimeInterval(60))
    }

    @Test("own writes leave it false; a write through another connection to the same file makes it true once")
    func ownAndOthers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        let other = try SQLiteNotificationStore(path: path)  // another process, as far as SQLite can tell
        #expect(engine.changedElsewhere())  // the first call cannot know
        #expect(!engine.changedElsewhere())
        _ = try await engine.insertPending(Self.request("own"), cap: nil, at: Date())
        _ = try await engine.insertPending(batch: [Self.request("own-2"), Self.request("own-3")], cap: nil, at: Date())
        try await engine.setMetadata("k", "v")
        #expect(!engine.changedElsewhere())
        _ = try await other.insertPending(Self.request("theirs"), cap: nil, at: Date())
        #expect(engine.changedElsewhere())
        #expect(!engine.changedElsewhere())
    }

    @Test("a commit another connection is still making when asked is waited for, not missed")
    func commitInProgress() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        _ = engine.changedElsewhere()
        let other = try DatabaseQueue(path: path)
        let writing = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? other.write { db in
                try db.execute(sql: "INSERT INTO metadata (key, value) VALUES ('k', 'v')")
                writing.signal()
                // The other process has not committed yet (in the race: its log sync and index update are under way);
                // the answer below must not depend on how long this takes.
                Thread.sleep(forTimeInterval: 0.2)
            }
            committed.signal()
        }
        writing.wait()
        #expect(engine.changedElsewhere())
        committed.wait()
        #expect(!engine.changedElsewhere())
    }

    @Test("a check asked while an own write is in flight is answered by that write's transaction, once, without its own")
    func deferredToOwnWrite() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        let other = try SQLiteNotificationStore(path: path)
        _ = engine.changedElsewhere()
        let calls = Mutex(0)
        for (theirs, writes) in [(true, true), (false, true), (true, false), (false, false)] {
            if theirs { try await other.setMetadata("theirs", UUID().uuidString) }
            let before = calls.withLock { $0 }
            let release = DispatchSemaphore(value: 0)
            let write = Self.startHeldWrite(engine, writes: writes, release: release)
            await write.started()
            engine.checkChangedElsewhere { calls.withLock { $0 += 1 } }
            // Deferred: nothing answered while the write waits.
            #expect(calls.withLock { $0 } == before)
            release.signal()
            try await write.task.value
            // A write that wrote answered in its transaction; one that only read left it to the check after it.
            #expect(calls.withLock { $0 } == before + (theirs ? 1 : 0), "theirs \(theirs), writes \(writes)")
            #expect(!engine.changedElsewhere())
        }
        // With no write in flight the check runs at once.
        try await other.setMetadata("theirs", "again")
        engine.checkChangedElsewhere { calls.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } == 3)
    }

    @Test("after an own write, a monitor's check waits for the next own write, which answers it under its lock")
    func leftToNextOwnWrite() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        let other = try SQLiteNotificationStore(path: path)
        _ = engine.changedElsewhere()
        let calls = Mutex(0)
        let count: @Sendable () -> Void = { calls.withLock { $0 += 1 } }
        // No own write since the store opened: the check runs at once, and finds nothing.
        #expect(!engine.checkChangedElsewhereOrDefer(then: count))
        #expect(calls.withLock { $0 } == 0)
        // Another process's commit, with no own write since the last check: reported at once.
        try await other.setMetadata("theirs", "1")
        #expect(!engine.checkChangedElsewhereOrDefer(then: count))
        #expect(calls.withLock { $0 } == 1)
        // An own write, then another process's commit landing after it: the check waits for the next own write...
        try await engine.setMetadata("own", "1")
        try await other.setMetadata("theirs", "2")
        #expect(engine.checkChangedElsewhereOrDefer(then: count))
        #expect(calls.withLock { $0 } == 1)
        // ...whose transaction answers it: the other commit is reported, once.
        try await engine.setMetadata("own", "2")
        #expect(calls.withLock { $0 } == 2)
        engine.settleDeferredCheck()
        #expect(calls.withLock { $0 } == 2)
        #expect(!engine.changedElsewhere())
        // An own write and nothing else: the waiting check, settled with no own write meanwhile, finds nothing.
        #expect(engine.checkChangedElsewhereOrDefer(then: count))
        engine.settleDeferredCheck()
        #expect(calls.withLock { $0 } == 2)
        // Another process's commit after an own write, and no own write before the pause ends: the settle reports it.
        try await engine.setMetadata("own", "3")
        try await other.setMetadata("theirs", "3")
        #expect(engine.checkChangedElsewhereOrDefer(then: count))
        #expect(calls.withLock { $0 } == 2)
        engine.settleDeferredCheck()
        #expect(calls.withLock { $0 } == 3)
    }

    @Test(
        "a monitor watching the store reports another process's commit made during a stream of own writes",
        .timeLimit(.minutes(1)))
    func monitorDuringOwnWrites() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        let other = try SQLiteNotificationStore(path: path)
        _ = engine.changedElsewhere()
        let (reports, report) = AsyncStream<Void>.makeStream()
        let monitor = StoreFileMonitor(watching: engine, at: path) { report.yield() }
        #expect(monitor != nil)
        // Own writes alone report nothing; the other process's commit, amid them, is reported.
        for index in 0..<20 { try await engine.setMetadata("own", "\(index)") }
        try await other.setMetadata("theirs", "1")
        for index in 0..<20 { try await engine.setMetadata("own", "\(index)") }
        var iterator = reports.makeAsyncIterator()
        await iterator.next()
        withExtendedLifetime(monitor) {}
    }

    @Test(
        "a monitor reports another process's commit made while it pauses after own writes, with none after it",
        .timeLimit(.minutes(1)))
    func monitorAfterOwnWrites() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        let other = try SQLiteNotificationStore(path: path)
        _ = engine.changedElsewhere()
        let (reports, report) = AsyncStream<Void>.makeStream()
        // A pause long enough that the other commit lands in it, while the folder is not watched.
        let monitor = StoreFileMonitor(watching: engine, at: path, pause: .seconds(1)) { report.yield() }
        #expect(monitor != nil)
        for index in 0..<20 { try await engine.setMetadata("own", "\(index)") }
        try await other.setMetadata("theirs", "1")
        var iterator = reports.makeAsyncIterator()
        await iterator.next()
        withExtendedLifetime(monitor) {}
    }

    /// A write of the store's own that waits inside its transaction until `release` is signalled.
    struct HeldWrite {
        let task: Task<Void, any Error>
        let entered: AsyncStream<Void>

        func started() async {
            for await _ in entered { return }
        }
    }

    static func startHeldWrite(_ store: SQLiteNotificationStore, writes: Bool, release: DispatchSemaphore) -> HeldWrite {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await store.write { db in
                signal.yield()
                release.wait()
                if writes { try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES ('own', 'v')") }
            }
        }
        return HeldWrite(task: task, entered: entered)
    }
}
