import Foundation
import GRDB

/// Checking and recovering a store file: what `unotify store check` and `unotify store recover` run, and the
/// daemon's look at its store before it serves it.
extension SQLiteNotificationStore {
    /// What a check found: SQLite's verdict and how many rows each table holds.
    public struct CheckReport: Sendable, Equatable {
        /// SQLite's problems (`PRAGMA integrity_check` or `quick_check`); empty when the file is sound.
        public var problems: [String]
        /// Rows per table, for the tables that could be counted.
        public var counts: [String: Int]

        public var isSound: Bool { problems.isEmpty }

        public init(problems: [String], counts: [String: Int]) {
            self.problems = problems
            self.counts = counts
        }
    }

    /// The tables of a store, in the order they are copied on recovery (apps and categories before what refers to
    /// them).
    static let tables = ["metadata", "app", "category", "floatingPlan", "pending", "delivered", "history", "response"]

    /// Checks the file: `PRAGMA quick_check` (`thorough: false`, O(size) but without index cross-checks) or
    /// `PRAGMA integrity_check`, then counts the rows of each table.
    ///
    /// - Throws: When the file cannot be read at all.
    public func check(thorough: Bool) throws -> CheckReport {
        try writer.read { db in
            let pragma = thorough ? "integrity_check" : "quick_check"
            let lines = try String.fetchAll(db, sql: "PRAGMA \(pragma)")
            var counts: [String: Int] = [:]
            for table in Self.tables where try db.tableExists(table) {
                counts[table] = try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
            }
            return CheckReport(problems: lines == ["ok"] ? [] : lines, counts: counts)
        }
    }

    /// Moves everything in the write-ahead log into the main file and empties the log, so that the store is one
    /// self-contained file (after a clean stop, before a backup).
    public func checkpoint() throws {
        try writer.writeWithoutTransaction { db in _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// What ``recover(path:now:)`` did.
    public struct RecoveryReport: Sendable, Equatable {
        /// Where the damaged file (and its `-wal` and `-shm` files) now is.
        public var damagedCopy: String
        /// Rows copied into the new store, per table.
        public var recovered: [String: Int]
        /// Rows the damaged file listed but could not give back, per table (an estimate where the count itself
        /// failed).
        public var lost: [String: Int]
    }

    /// Recovers what can be read of a damaged store into a new store at the same path.
    ///
    /// The damaged file is first renamed to `<path>.damaged-<UTC timestamp>` (with its `-wal` and `-shm` files), never
    /// overwritten or deleted; a new store is made at `path`; then every row that can still be read is copied from the
    /// damaged copy, table by table: a scan in rowid order until the first unreadable page, then one in reverse order
    /// from the end, so that rows on both sides of a damaged page come back. Columns the two schemas share are copied.
    ///
    /// This is a row-level salvage, not SQLite's page-level `.recover` (which needs the sqlite3 shell): rows on a
    /// damaged page itself are lost and counted in ``RecoveryReport/lost``.
    ///
    /// - Throws: When the file cannot be moved or the new store cannot be made; the damaged file is then where it
    ///   was or at its new name, and nothing was written to it.
    public static func recover(path: String, now: Date = Date()) throws -> RecoveryReport {
        let stamp = ISO8601DateFormatter().string(from: now).replacingOccurrences(of: ":", with: "")
        let damaged = "\(path).damaged-\(stamp)"
        let manager = FileManager.default
        guard !manager.fileExists(atPath: damaged) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(damaged) already exists")
        }
        try manager.moveItem(atPath: path, toPath: damaged)
        for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
            try manager.moveItem(atPath: path + suffix, toPath: damaged + suffix)
        }
        let fresh = try SQLiteNotificationStore(path: path)
        var configuration = Configuration()
        configuration.readonly = true
        var recovered: [String: Int] = [:]
        var lost: [String: Int] = [:]
        guard let source = try? DatabaseQueue(path: damaged, configuration: configuration) else {
            return RecoveryReport(damagedCopy: damaged, recovered: [:], lost: [:])
        }
        for table in tables {
            let (rows, expected) = salvage(table: table, from: source)
            let copied = try fresh.writer.write { db -> Int in
                guard try db.tableExists(table) else { return 0 }
                let columns = try Set(db.columns(in: table).map(\.name))
                var copied = 0
                for row in rows {
                    let kept = row.filter { columns.contains($0.name) }
                    guard !kept.isEmpty else { continue }
                    let sql = "INSERT OR IGNORE INTO \(table) (\(kept.map(\.name).joined(separator: ", "))) VALUES ("
                        + Array(repeating: "?", count: kept.count).joined(separator: ", ") + ")"
                    try db.execute(sql: sql, arguments: StatementArguments(kept.map(\.value)))
                    copied += db.changesCount
                }
                return copied
            }
            recovered[table] = copied
            if expected > copied { lost[table] = expected - copied }
        }
        return RecoveryReport(damagedCopy: damaged, recovered: recovered, lost: lost)
    }

    /// A row read from a damaged file: its columns' names and values.
    private typealias SalvagedRow = [(name: String, value: DatabaseValue)]

    /// The rows of `table` that can be read, forwards then backwards by rowid, and how many the table claims.
    ///
    /// Each scan runs in a read of its own: a scan that meets a damaged page throws out of its read (GRDB reports
    /// the statement's error when the read ends), and the rows it got before stay.
    private static func salvage(table: String, from source: DatabaseQueue) -> (rows: [SalvagedRow], expected: Int) {
        guard (try? source.read({ db in try db.tableExists(table) })) == true else { return ([], 0) }
        var rows: [Int64: SalvagedRow] = [:]
        for order in ["ASC", "DESC"] {
            try? source.read { db in
                let cursor = try Row.fetchCursor(db, sql: "SELECT rowid AS __rowid, * FROM \(table) ORDER BY rowid \(order)")
                while let row = try cursor.next() {
                    let id: Int64 = row["__rowid"]
                    if rows[id] != nil { return }  // the backward scan met the forward one
                    rows[id] = row.filter { $0.0 != "__rowid" }.map { (name: $0.0, value: $0.1) }
                }
            }
        }
        let expected = (try? source.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") }) ?? nil
        return (rows.keys.sorted().compactMap { rows[$0] }, max(expected ?? rows.count, rows.count))
    }
}
