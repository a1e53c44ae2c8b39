import Foundation
import GRDB

#if os(Linux)
import Glibc
#endif
import NotificationEngine
import NotificationModel

/// The SQLite implementation of ``NotificationStore``, through GRDB.
///
/// On disk it uses a `DatabasePool` in WAL mode with `synchronous = FULL`, so that a request `add` acknowledged
/// survives `kill -9` and power loss alike, and several processes (an app in embedded mode and `unotify`) can
/// share one file. Each method is one transaction.
public final class SQLiteNotificationStore: NotificationStore {
    let writer: any DatabaseWriter

    /// Opens (creating if needed) the store at `path`, creating missing parent folders and migrating the schema.
    ///
    /// - Throws: A GRDB `DatabaseError` when the file cannot be opened or migrated.
    public init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        writer = try DatabasePool(path: path, configuration: Self.configuration())
        try Self.migrator.migrate(writer)
    }

    /// Opens a store that lives in memory only: for tests and for the `OpenUserNotificationsTesting` product.
    public init(inMemory: Void = ()) throws {
        writer = try DatabaseQueue(configuration: Self.configuration())
        try Self.migrator.migrate(writer)
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "OpenUserNotifications"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    // MARK: - Pending requests

    public func insertPending(_ request: PendingRequest, cap: Int?, at date: Date) throws -> PendingInsertion {
        try writer.write { db in
            try db.execute(
                sql: "DELETE FROM pending WHERE app = ? AND identifier = ?", arguments: [request.appID, request.identifier])
            var record = try PendingRecord(request)
            try record.insert(db)
            var stored = request
            stored.revision = record.id!
            var discarded: [PendingRequest] = []
            if let cap {
                let excess = try PendingRecord.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM pending WHERE app = ? AND nextFire IS NOT NULL
                        ORDER BY nextFire, id LIMIT -1 OFFSET ?
                        """,
                    arguments: [request.appID, max(cap, 0)])
                for record in excess {
                    _ = try record.delete(db)
                    let request = try record.request()
                    discarded.append(request)
                    var entry = try HistoryRecord(
                        HistoryEntry(
                            appID: request.appID, requestIdentifier: request.identifier, title: request.spec.content.title,
                            dueDate: request.nextFireDate, actedAt: date, presenter: "none", presentation: [],
                            outcome: .discarded, detail: "more than \(cap) pending requests; the soonest \(cap) are kept"))
                    try entry.insert(db)
                }
            }
            return PendingInsertion(stored: stored, discarded: discarded)
        }
    }

    public func pendingRequests(appID: String) throws -> [PendingRequest] {
        try writer.read { db in
            try PendingRecord.fetchAll(db, sql: "SELECT * FROM pending WHERE app = ? ORDER BY id", arguments: [appID])
                .map { try $0.request() }
        }
    }

    public func removePending(appID: String, identifiers: [String]?) throws -> [PendingRequest] {
        try writer.write { db in
            let records: [PendingRecord]
            if let identifiers {
                records = try PendingRecord.filter(Column("app") == appID && identifiers.contains(Column("identifier")))
                    .fetchAll(db)
            } else {
                records = try PendingRecord.filter(Column("app") == appID).fetchAll(db)
            }
            for record in records { _ = try record.delete(db) }
            return try records.map { try $0.request() }
        }
    }

    public func nextWakeDate(appID: String?) throws -> Date? {
        try writer.read { db in
            let scope = appID == nil ? "" : " AND app = ?"
            let arguments: StatementArguments = appID.map { [$0] } ?? []
            let fire = try Double.fetchOne(
                db, sql: "SELECT MIN(nextFire) FROM pending WHERE claimUntil IS NULL" + scope, arguments: arguments)
            let claim = try Double.fetchOne(
                db, sql: "SELECT MIN(claimUntil) FROM pending WHERE claimUntil IS NOT NULL" + scope, arguments: arguments)
            return [fire, claim].compactMap { $0 }.min().map(Date.init(timeIntervalSince1970:))
        }
    }

    public func claimDue(at date: Date, leaseUntil: Date, limit: Int, appID: String?) throws -> [PendingRequest] {
        try writer.write { db in
            let now = date.timeIntervalSince1970
            let scope = appID == nil ? "" : " AND app = ?"
            let app: StatementArguments = appID.map { [$0] } ?? []
            var records = try PendingRecord.fetchAll(
                db,
                sql: "SELECT * FROM pending WHERE claimUntil IS NULL AND nextFire <= ?\(scope) ORDER BY nextFire LIMIT ?",
                arguments: [now] + app + [limit])
            records += try PendingRecord.fetchAll(
                db,
                sql: "SELECT * FROM pending WHERE claimUntil IS NOT NULL AND claimUntil <= ?\(scope) ORDER BY nextFire LIMIT ?",
                arguments: [now] + app + [max(0, limit - records.count)])
            for record in records {
                try db.execute(
                    sql: "UPDATE pending SET claimUntil = ?, claimOwner = ? WHERE id = ?",
                    arguments: [leaseUntil.timeIntervalSince1970, Self.processID, record.id])
            }
            return try records.map { try $0.request() }
        }
    }

    @discardableResult
    public func completeFire(
        _ request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?
    ) throws -> Int64 {
        try writer.write { db in
            if let nextFireDate {
                try db.execute(
                    sql: "UPDATE pending SET nextFire = ?, claimUntil = NULL, claimOwner = NULL WHERE id = ?",
                    arguments: [nextFireDate.timeIntervalSince1970, request.revision])
            } else {
                try db.execute(sql: "DELETE FROM pending WHERE id = ?", arguments: [request.revision])
            }
            var historyRecord = try HistoryRecord(history)
            try historyRecord.insert(db)
            let historyID = historyRecord.id!
            if var delivered {
                delivered.historyID = historyID
                try DeliveredRecord(delivered).insert(db, onConflict: .replace)
            }
            if let badge {
                try db.execute(
                    sql: """
                        INSERT INTO app (id, authorization, grantedOptions, badge) VALUES (?, 0, 0, ?)
                        ON CONFLICT(id) DO UPDATE SET badge = excluded.badge
                        """,
                    arguments: [request.appID, badge])
            }
            return historyID
        }
    }

    public func releaseAbandonedClaims() throws -> Int {
        try writer.write { db in
            let owners = try Int32.fetchAll(
                db, sql: "SELECT DISTINCT claimOwner FROM pending WHERE claimUntil IS NOT NULL AND claimOwner IS NOT NULL")
            var released = 0
            for owner in owners where owner != Self.processID && !Self.isAlive(owner) {
                try db.execute(
                    sql: "UPDATE pending SET claimUntil = NULL, claimOwner = NULL WHERE claimOwner = ?", arguments: [owner])
                released += db.changesCount
            }
            return released
        }
    }

    static let processID = getpid()

    /// Whether a process exists (signal 0 checks without sending anything).
    static func isAlive(_ processID: Int32) -> Bool {
        kill(processID, 0) == 0 || errno != ESRCH
    }

    public func floatingRequests() throws -> [PendingRequest] {
        try writer.read { db in
            try PendingRecord.fetchAll(db, sql: "SELECT * FROM pending WHERE floating = 1").map { try $0.request() }
        }
    }

    public func updateFireDates(_ updates: [FireDateUpdate]) throws {
        try writer.write { db in
            let statement = try db.makeStatement(sql: "UPDATE pending SET nextFire = ? WHERE id = ?")
            for update in updates {
                try statement.execute(arguments: [update.nextFireDate?.timeIntervalSince1970, update.revision])
            }
        }
    }

    public func pendingCount() throws -> Int {
        try writer.read { db in try PendingRecord.fetchCount(db) }
    }

    public func pendingCounts() throws -> [String: Int] {
        try writer.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT app, COUNT(*) AS n FROM pending GROUP BY app")
                    .map { ($0["app"] as String, $0["n"] as Int) })
        }
    }

    // MARK: - Delivered notifications

    public func deliveredNotifications(appID: String) throws -> [DeliveredNotification] {
        try writer.read { db in
            try DeliveredRecord.fetchAll(db, sql: "SELECT * FROM delivered WHERE app = ? ORDER BY date", arguments: [appID])
                .map { try $0.notification() }
        }
    }

    public func removeDelivered(appID: String, identifiers: [String]?, outcome: HistoryEntry.Outcome) throws
        -> [DeliveredNotification]
    {
        try writer.write { db in
            var request = DeliveredRecord.filter(Column("app") == appID)
            if let identifiers { request = request.filter(identifiers.contains(Column("identifier"))) }
            let records = try request.fetchAll(db)
            for record in records {
                _ = try record.delete(db)
                try db.execute(
                    sql: "UPDATE history SET outcome = ? WHERE id = ? AND outcome = ?",
                    arguments: [outcome.rawValue, record.historyID, HistoryEntry.Outcome.delivered.rawValue])
            }
            return try records.map { try $0.notification() }
        }
    }

    // MARK: - Responses

    public func recordResponse(_ response: ResponseSpec, outcome: HistoryEntry.Outcome, enqueue: Bool) throws {
        try writer.write { db in
            let notification = response.notification
            try db.execute(
                sql: "DELETE FROM delivered WHERE app = ? AND identifier = ?",
                arguments: [notification.appID, notification.identifier])
            let detail = response.userText.map { "\(response.actionIdentifier): \($0)" } ?? response.actionIdentifier
            try db.execute(
                sql: "UPDATE history SET outcome = ?, detail = ? WHERE id = ?",
                arguments: [outcome.rawValue, detail, notification.historyID])
            if enqueue {
                try db.execute(
                    sql: "INSERT INTO response (app, payload) VALUES (?, ?)",
                    arguments: [notification.appID, try JSON.encode(response)])
            }
        }
    }

    public func queuedResponses(appID: String) throws -> [QueuedResponse] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, payload FROM response WHERE app = ? ORDER BY id", arguments: [appID])
                .map { QueuedResponse(id: $0["id"], response: try JSON.decode(ResponseSpec.self, from: $0["payload"])) }
        }
    }

    public func removeQueuedResponse(id: Int64) throws {
        try writer.write { db in try db.execute(sql: "DELETE FROM response WHERE id = ?", arguments: [id]) }
    }

    // MARK: - Categories and apps

    public func setCategories(_ categories: [CategorySpec], appID: String) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO category (app, payload) VALUES (?, ?)",
                arguments: [appID, try JSON.encode(categories)])
        }
    }

    public func categories(appID: String) throws -> [CategorySpec] {
        try writer.read { db in
            guard let payload = try Data.fetchOne(db, sql: "SELECT payload FROM category WHERE app = ?", arguments: [appID])
            else { return [] }
            return try JSON.decode([CategorySpec].self, from: payload)
        }
    }

    public func appState(appID: String) throws -> AppState? {
        try writer.read { db in try AppRecord.fetchOne(db, key: appID)?.state }
    }

    public func saveAppState(_ state: AppState) throws {
        try writer.write { db in try AppRecord(state).save(db) }
    }

    public func allAppStates() throws -> [AppState] {
        try writer.read { db in try AppRecord.order(Column("id")).fetchAll(db).map(\.state) }
    }

    // MARK: - History and metadata

    public func history(appID: String?, limit: Int) throws -> [HistoryEntry] {
        try writer.read { db in
            var request = HistoryRecord.order(Column("id").desc).limit(limit)
            if let appID { request = request.filter(Column("app") == appID) }
            return try request.fetchAll(db).map { $0.entry() }
        }
    }

    public func appendHistory(_ entry: HistoryEntry) throws {
        try writer.write { db in
            var record = try HistoryRecord(entry)
            try record.insert(db)
        }
    }

    public func metadata(_ key: String) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = ?", arguments: [key]) }
    }

    public func setMetadata(_ key: String, _ value: String) throws {
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }
}
