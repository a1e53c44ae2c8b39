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
