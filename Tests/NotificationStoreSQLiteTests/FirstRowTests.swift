import GRDB
import GRDBSQLite
@testable import NotificationStoreSQLite
import Testing

/// ``SQLiteNotificationStore/firstRow(of:_:_:)`` steps a statement straight in SQLite, beside GRDB: its error path
/// must report SQLite's error as GRDB would, and leave the (cached) statement usable.
@Suite("A statement's first row read straight from SQLite")
struct FirstRowTests {
    @Test("a failing step throws SQLite's code and message with the SQL, and resets the statement for the next call")
    func failingStep() throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            // abs() of the smallest 64-bit integer fails at the step, not at the prepare.
            let failing = try db.makeStatement(sql: "SELECT abs(-9223372036854775807 - 1)")
            for _ in 0..<2 {
                do {
                    _ = try SQLiteNotificationStore.firstRow(of: failing, db) { _ in 0 }
                    Issue.record("the step did not fail")
                } catch let error as DatabaseError {
                    #expect(error.resultCode == .SQLITE_ERROR)
                    #expect(error.message == "integer overflow")
                    #expect(error.sql == "SELECT abs(-9223372036854775807 - 1)")
                }
            }
            let working = try db.makeStatement(sql: "SELECT 7 WHERE ?1 IS NULL")
            #expect(try SQLiteNotificationStore.firstRow(of: working, db) { sqlite3_column_int64($0, 0) } == 7)
            #expect(try SQLiteNotificationStore.firstRow(of: working, db) { sqlite3_column_int64($0, 0) } == 7)
        }
    }

    @Test("no row gives nil")
    func noRow() throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            let empty = try db.makeStatement(sql: "SELECT 1 WHERE 0")
            #expect(try SQLiteNotificationStore.firstRow(of: empty, db) { _ in 1 } == nil)
        }
    }
}
