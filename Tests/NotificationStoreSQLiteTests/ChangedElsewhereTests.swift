import Foundation
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
    func ownAndOthers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let engine = try SQLiteNotificationStore(path: path)
        let other = try SQLiteNotificationStore(path: path)  // another process, as far as SQLite can tell
        #expect(engine.changedElsewhere())  // the first call cannot know
        #expect(!engine.changedElsewhere())
        _ = try engine.insertPending(Self.request("own"), cap: nil, at: Date())
        _ = try engine.insertPending(batch: [Self.request("own-2"), Self.request("own-3")], cap: nil, at: Date())
        try engine.setMetadata("k", "v")
        #expect(!engine.changedElsewhere())
        _ = try other.insertPending(Self.request("theirs"), cap: nil, at: Date())
        #expect(engine.changedElsewhere())
        #expect(!engine.changedElsewhere())
    }
}
