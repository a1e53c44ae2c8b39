import Foundation
import GRDB
import Testing

@testable import UnotifyBench

/// The bench's baselines must run with the store's durability, or a ratio compares a durable add with a write that
/// was not synced (docs/benchmarks.md: "raw GRDB inserts ... (`DatabasePool`, WAL, `synchronous = FULL`)").
@Suite("unotify-bench: the raw baselines' and SQLite's own insert's connections")
struct RawStoreTests {
    /// A fresh store file in a folder of its own.
    private func freshStore() throws -> (path: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("store.sqlite").path
        try RawStore.createFreshStoreFile(at: path)
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
        let queue = try DatabaseQueue(path: path)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM pending WHERE app = 'a'") } == 10)
        try queue.close()
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
        let queue = try DatabaseQueue(path: path)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM pending WHERE app = 'a'") } == 2)
        try queue.close()
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
