import Foundation
import GRDB
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
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
}
