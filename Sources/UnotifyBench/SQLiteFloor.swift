import Foundation
import GRDB
import GRDBSQLite

/// SQLite's own insert of pre-encoded pending rows, through its C API: the floor under figure 4's figures.
///
/// One prepared `INSERT` (``RawStore/insertSQL``, the raw baseline's), its five values bound with `sqlite3_bind_*`,
/// then `sqlite3_step` and `sqlite3_reset`, row after row, in one `BEGIN IMMEDIATE` … `COMMIT`, on a connection with
/// the store's own pragmas (``RawStore/configuration()``). GRDB only opens the connection: no GRDB `Statement`,
/// no `StatementArguments`, no Swift value boxed per row. What is left is SQLite's cost of the rows themselves, in this
/// order (the table's and its seven indexes' B-trees, the write-ahead log, the checkpoint, the commit's `fdatasync`),
/// with the store's pragmas: other pragmas (a larger cache, larger pages) or the rows in another order change it.
///
/// ```swift
/// let (seconds, settings) = try SQLiteFloor.insert(rows, appID: Workload.marginalAppID, path: path)
/// print(Double(rows.count) / seconds, "rows/s with", settings)
/// ```
enum SQLiteFloor {
    /// Inserts `rows` into the store file at `path` as described above, one transaction for all of them, or one for
    /// every `rowsPerTransaction` of them (group commits, as the daemon's writer makes under many clients).
    ///
    /// - Parameters:
    ///   - rows: pre-encoded rows (``RawRowGenerator``), inserted in this order.
    ///   - appID: the `app` column of every row.
    ///   - path: a store file with the store's schema (``RawStore/createFreshStoreFile(at:)``), already in WAL mode.
    ///   - rowsPerTransaction: rows committed together; all of them by default.
    /// - Returns: the seconds from the first `BEGIN IMMEDIATE` to the end of the last `COMMIT`, and the connection's
    ///   settings.
    /// - Throws: `DatabaseError` with SQLite's code and message when a statement fails; the open transaction is then
    ///   rolled back (the ones committed before it stay).
    static func insert(
        _ rows: [RawPendingRow], appID: String, path: String, rowsPerTransaction: Int = .max
    ) throws -> (seconds: Double, settings: Settings) {
        let queue = try DatabaseQueue(path: path, configuration: RawStore.configuration())
        return try queue.writeWithoutTransaction { db in
            guard let connection = db.sqliteConnection else { throw BenchError("the floor's connection is closed") }
            // The store checkpoints the log at 4,000 pages of 4 KiB, 16 MiB, and cuts it back to 16 MiB
            // (`journal_size_limit`): a file with larger pages checkpoints at the same 16 MiB, or every restart of its
            // log would shrink it and the next commits grow it again (in C, group commits on 16 KiB pages took about
            // twice the time so).
            let pageSize = try integer("PRAGMA page_size", connection)
            if pageSize > 4_096 { try execute("PRAGMA wal_autocheckpoint = \(16_777_216 / pageSize)", connection) }
            let settings = try readSettings(connection)
            var prepared: OpaquePointer?
            let sql = RawStore.insertSQL
            try check(sqlite3_prepare_v2(connection, sql, -1, &prepared, nil), connection, sql)
            guard let statement = prepared else { throw BenchError("preparing the floor's INSERT gave no statement") }
            defer { sqlite3_finalize(statement) }

            let start = ContinuousClock.now
            try execute("BEGIN IMMEDIATE", connection)
            do {
                try appID.withCString { app in
                    for (index, row) in rows.enumerated() {
                        if index > 0, index % rowsPerTransaction == 0 {
                            try execute("COMMIT", connection)
                            try execute("BEGIN IMMEDIATE", connection)
                        }
                        // The row's text and blob are bound without a copy (SQLITE_STATIC, a nil destructor): they stay
                        // valid until the step returns, and the next row binds new ones before the next step.
                        let code = row.identifier.withCString { identifier in
                            row.spec.withUnsafeBytes { spec -> CInt in
                                // The first bind that fails answers with its own code; nothing allocated per row.
                                var code = sqlite3_bind_text(statement, 1, app, -1, nil)
                                if code == SQLITE_OK { code = sqlite3_bind_text(statement, 2, identifier, -1, nil) }
                                if code == SQLITE_OK {
                                    code = sqlite3_bind_blob(statement, 3, spec.baseAddress, CInt(spec.count), nil)
                                }
                                if code == SQLITE_OK { code = sqlite3_bind_double(statement, 4, row.addedAt) }
                                if code == SQLITE_OK { code = sqlite3_bind_double(statement, 5, row.nextFire) }
                                guard code == SQLITE_OK else { return code }
                                let stepped = sqlite3_step(statement)
                                sqlite3_reset(statement)
                                return stepped
                            }
                        }
                        if code != SQLITE_DONE { try check(code, connection, RawStore.insertSQL) }
                    }
                }
                sqlite3_clear_bindings(statement)
                try execute("COMMIT", connection)
            } catch {
                if sqlite3_get_autocommit(connection) == 0 { sqlite3_exec(connection, "ROLLBACK", nil, nil, nil) }
                throw error
            }
            return ((ContinuousClock.now - start).seconds, settings)
        }
    }

    /// Creates an empty file at `path` whose pages are `pageSize` bytes, then lets the store create its schema in it
    /// (``RawStore/createFreshStoreFile(at:)``): the page size is fixed by the first table, and WAL mode keeps it.
    static func createStoreFile(at path: String, pageSize: Int) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            guard let connection = db.sqliteConnection else { throw BenchError("the floor's connection is closed") }
            try execute("PRAGMA page_size = \(pageSize)", connection)
            try execute("CREATE TABLE floorPageSize(x)", connection)
            try execute("DROP TABLE floorPageSize", connection)
        }
        try queue.close()
        try RawStore.createFreshStoreFile(at: path)
    }

    /// `rows` in order of `nextFire`, rows with the same fire date in their original order (a stable sort): what an
    /// importer that sorted its input by fire date before inserting it would write. Identifiers follow their rows.
    static func sortedByFireDate(_ rows: [RawPendingRow]) -> [RawPendingRow] {
        rows.indices.sorted { left, right in
            rows[left].nextFire < rows[right].nextFire || (rows[left].nextFire == rows[right].nextFire && left < right)
        }.map { rows[$0] }
    }

    /// The pragmas that decide the insert's cost, read back through the connection.
    private static func readSettings(_ connection: OpaquePointer) throws -> Settings {
        var settings = Settings()
        settings.pageSize = Int(try integer("PRAGMA page_size", connection))
        settings.cacheSize = Int(try integer("PRAGMA cache_size", connection))
        settings.synchronous = Int(try integer("PRAGMA synchronous", connection))
        settings.walAutocheckpoint = Int(try integer("PRAGMA wal_autocheckpoint", connection))
        settings.journalMode = try text("PRAGMA journal_mode", connection)
        return settings
    }

    private static func integer(_ sql: String, _ connection: OpaquePointer) throws -> Int64 {
        try firstColumn(sql, connection) { sqlite3_column_int64($0, 0) }
    }

    private static func text(_ sql: String, _ connection: OpaquePointer) throws -> String {
        try firstColumn(sql, connection) { statement in
            sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
        }
    }

    /// Prepares `sql`, steps it to its first row, reads that row's first column with `read` and finalizes it.
    private static func firstColumn<T>(
        _ sql: String, _ connection: OpaquePointer, _ read: (OpaquePointer) -> T
    ) throws -> T {
        var prepared: OpaquePointer?
        try check(sqlite3_prepare_v2(connection, sql, -1, &prepared, nil), connection, sql)
        guard let statement = prepared else { throw BenchError("\(sql): no statement") }
        defer { sqlite3_finalize(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_ROW else { throw BenchError("\(sql): no row (code \(code))") }
        return read(statement)
    }

    private static func execute(_ sql: String, _ connection: OpaquePointer) throws {
        try check(sqlite3_exec(connection, sql, nil, nil, nil), connection, sql)
    }

    /// Throws SQLite's error for `code` unless it is `SQLITE_OK`.
    private static func check(_ code: CInt, _ connection: OpaquePointer, _ sql: String) throws {
        guard code != SQLITE_OK else { return }
        throw DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
}
