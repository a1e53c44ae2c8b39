import Foundation
import GRDB
import Testing

@testable import UnotifyBench

/// The bench's baselines must run with the store's durability, or a ratio compares a durable add with a write that
/// was not synced (docs/benchmarks.md: "raw GRDB inserts ... (`DatabasePool`, WAL, `synchronous = FULL`)").
@Suite("unotify-bench: the raw baselines' and SQLite's own insert's connections")
struct RawStoreTests {
    /// A fresh store file in a folder of its own, of SQLite's default pages or of `pageSize`.
    private func freshStore(pageSize: Int? = nil) throws -> (path: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("store.sqlite").path
        if let pageSize {
            try SQLiteFloor.createStoreFile(at: path, pageSize: pageSize)
        } else {
            try RawStore.createFreshStoreFile(at: path)
        }
        return (path, folder)
    }

    /// GRDB's `DatabasePool` puts its writer in WAL mode after `prepareDatabase` ran, with `synchronous = NORMAL`
    /// (the store sets FULL again after opening, and `RawStore.open` through the same function).
    @Test("the raw baselines' writer syncs every commit and checkpoints at 4,000 pages, as the store's writer does")
    func rawWriterSyncsEveryCommit() throws {
        let (path, folder) = try freshStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pool = try RawStore.open(path)
        let synchronous = try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        let checkpoint = try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        try pool.close()
        #expect(synchronous == 2)  // FULL; NORMAL is 1
        #expect(checkpoint == 4_000)  // the store's, not SQLite's 1,000
    }

    @Test("SQLite's own insert runs with the store's pragmas and inserts every row")
    func floorSettings() throws {
        let (path, folder) = try freshStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = RawRowGenerator(seed: 1, prefix: "t")
        let rows = try generator.next(10)
        let (_, settings) = try SQLiteFloor.insert(rows, appID: "a", path: path, rowsPerTransaction: 3)
        #expect(settings.synchronous == 2)
        #expect(settings.walAutocheckpoint == 4_000)
        #expect(settings.journalMode == "wal")
        #expect(try pendingCount(app: "a", path: path) == 10)
    }

    @Test("a row SQLite refuses: SQLite's error, the open transaction rolled back, the earlier ones kept")
    func floorErrorRollsBack() throws {
        let (path, folder) = try freshStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = RawRowGenerator(seed: 1, prefix: "t")
        var rows = try generator.next(5)
        rows[3].identifier = rows[2].identifier  // UNIQUE(app, identifier)
        #expect {
            try SQLiteFloor.insert(rows, appID: "a", path: path, rowsPerTransaction: 2)
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT
        }
        #expect(try pendingCount(app: "a", path: path) == 2)
    }

    /// The pending rows of `app` in the store file at `path`.
    private func pendingCount(app: String, path: String) throws -> Int? {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pending WHERE app = ?", arguments: [app])
        }
    }

    /// A store of 16 KiB pages checkpoints its log at the same 16 MiB as the store's 4,000 pages of 4 KiB.
    @Test("SQLite's own insert into a store of 16 KiB pages checkpoints at 1,024 pages")
    func largePagesCheckpointAtSixteenMebibytes() throws {
        let (path, folder) = try freshStore(pageSize: 16_384)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = RawRowGenerator(seed: 2, prefix: "p")
        let (_, settings) = try SQLiteFloor.insert(try generator.next(3), appID: "a", path: path)
        #expect(settings.pageSize == 16_384)
        #expect(settings.walAutocheckpoint == 1_024)
        #expect(try pendingCount(app: "a", path: path) == 3)
    }

    @Test("the sort by fire date is stable")
    func sortIsStable() throws {
        var generator = RawRowGenerator(seed: 3, prefix: "s")
        var rows = try generator.next(6)
        for index in rows.indices { rows[index].nextFire = Double(index % 2) }
        let sorted = SQLiteFloor.sortedByFireDate(rows)
        #expect(sorted.map(\.identifier) == [0, 2, 4, 1, 3, 5].map { rows[$0].identifier })
    }
}
