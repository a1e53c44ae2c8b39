import Foundation
import GRDB
import GRDBSQLite

#if os(Linux)
import Glibc
#endif
import NotificationEngine
import NotificationLocation
import NotificationModel
import Synchronization

/// The SQLite implementation of ``NotificationStore``, through GRDB.
///
/// On disk it uses a `DatabasePool` in WAL mode with `synchronous = FULL`, so that a request `add` acknowledged
/// survives `kill -9` and power loss alike, and several processes (an app in embedded mode and `unotify`) can
/// share one file. Each method is one transaction.
public final class SQLiteNotificationStore: NotificationStore {
    let writer: any DatabaseWriter
    /// The writer connection's `data_version` when ``changedElsewhere()`` last read it.
    private let seenDataVersion = Mutex<Int?>(nil)

    /// The store's own writes in flight, and a check for other processes' commits that waits for one of them
    /// (``checkChangedElsewhere(then:)``).
    private struct ForeignCommitCheck {
        var writesInFlight = 0
        /// What to call when the deferred check finds a change; `nil` when no check waits.
        var deferred: (@Sendable () -> Void)?
        /// How many of the store's own writes have ended (committed or rolled back).
        var ownWritesEnded: UInt64 = 0
        /// ``ownWritesEnded`` at the last ``checkChangedElsewhereOrDefer(then:)``.
        var ownWritesEndedAtLastCheck: UInt64 = 0
    }

    private let foreignCommitCheck = Mutex(ForeignCommitCheck())

    /// Opens (creating if needed) the store at `path`, creating missing parent folders and migrating the schema.
    ///
    /// - Throws: A GRDB `DatabaseError` when the file cannot be opened or migrated.
    public init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        writer = try Self.openPool(path: path, configuration: Self.configuration())
        try Self.migrator.migrate(writer)
    }

    /// A `DatabasePool` on `path` whose writer syncs every commit, as the store's does: the store opens its file with
    /// it, and `unotify-bench` its baselines' connections (with ``configuration()``), so that both pay the same
    /// durability.
    ///
    /// GRDB sets `synchronous = NORMAL` when it puts a pool in WAL mode, after `prepareDatabase` ran: in WAL mode
    /// that syncs only at checkpoints, so a power cut could lose committed (acknowledged) writes. FULL syncs the log
    /// at every commit. Found by the power-cut tests (Tests/Support/CPowerCutVFS).
    package static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    /// Opens an existing store without writing to it, for a store on a read-only file system (a disk the kernel
    /// remounted read-only after an error, a read-only bind mount): every read answers, every write throws
    /// `SQLITE_READONLY`, and nothing in the file can change.
    ///
    /// A WAL database opens read-only when its `-wal` and `-shm` files are there (a writer stopped abruptly). After
    /// a clean stop they are gone, and on a read-only file system SQLite cannot create the `-shm` file, so the store
    /// is then opened as immutable (`immutable=1`): safe, because without a `-wal` file everything is in the main
    /// file, and nobody can write to a read-only file system. Changes other processes make are not seen.
    ///
    /// - Throws: A GRDB `DatabaseError` when the file does not exist, is not a store, has a schema this version
    ///   does not know (a newer one, or one that was never migrated), or has a `-wal` file it cannot read.
    public init(readOnlyAt path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "no store at \(path)")
        }
        var configuration = Self.configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            let plain = try DatabaseQueue(path: path, configuration: configuration)
            _ = try plain.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            queue = plain
        } catch {
            let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            // Immutable mode ignores the -wal file: only safe when there is none.
            guard wal == 0 else { throw error }
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            queue = try DatabaseQueue(path: "file:\(encoded)?immutable=1", configuration: configuration)
        }
        let migrated = try queue.read { db in try Self.migrator.hasCompletedMigrations(db) }
        guard migrated else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the store at \(path) has a schema this version cannot read")
        }
        writer = queue
    }

    public func appendAPNsLog(_ entries: [APNsLogEntry], keep: Int) async throws {
        guard !entries.isEmpty else { return }
        let encoder = JSON.makeEncoder()
        let encoded = try entries.map { try FastSpecJSON.encode($0) ?? encoder.encode($0) }
        try await write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO apnsLog (entry) VALUES (?)")
            for entry in encoded { try insert.execute(arguments: [entry]) }
            try db.execute(sql: "DELETE FROM apnsLog WHERE id <= (SELECT MAX(id) FROM apnsLog) - ?", arguments: [max(keep, 0)])
        }
    }

    public func apnsLog(afterID: Int64, limit: Int) async throws -> [APNsLogEntry] {
        try await read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, entry FROM apnsLog WHERE id > ? ORDER BY id DESC LIMIT ?",
                arguments: [afterID, max(limit, 0)])
            return try rows.reversed().map { row in
                var entry = try JSON.decode(APNsLogEntry.self, from: row["entry"])
                entry.id = row["id"]
                return entry
            }
        }
    }

    /// Whether another connection, such as another process's, committed to the store since the last call (the first
    /// call answers `true`): SQLite's `PRAGMA data_version` on the writer connection, which this store's own commits
    /// leave alone. A ``StoreFileMonitor`` sees every write to the file, the engine's own included; asking this
    /// first spares the engine a loop pass for each of its own writes. Answers `true` when it cannot tell.
    ///
    /// It reads `data_version` inside a write transaction, so it waits for a commit another process is still making:
    /// the monitor hears that process's last write to the `-wal` file before the commit is visible (SQLite syncs the
    /// log, then publishes the commit in the `-shm` index, which inotify does not report), and a plain read at that
    /// moment would answer `false` and miss the change until the next write to the file.
    public func changedElsewhere() -> Bool {
        (try? writer.write { db in try dataVersionChanged(db) }) ?? true
    }

    /// Asks whether another connection committed, as ``changedElsewhere()`` does, and calls `onChange` if so; a
    /// ``StoreFileMonitor``'s handler, at every write to the store's files.
    ///
    /// While a write of this store is in flight the check waits for it instead of taking the write lock itself: that
    /// transaction reads `data_version` while it holds the lock, which answers for every commit the monitor heard
    /// before (a commit needs the lock, so one the monitor heard has ended before this transaction got it). Under a
    /// stream of adds the engine's own commits then cost no check each. When the last write in flight ends with the
    /// check still waiting (it read `data_version` before the check was asked, or wrote nothing), the check runs then.
    ///
    /// ```swift
    /// let monitor = StoreFileMonitor(storePath: path) { store.checkChangedElsewhere { scheduler.storeDidChange() } }
    /// ```
    public func checkChangedElsewhere(then onChange: @escaping @Sendable () -> Void) {
        let deferred = foreignCommitCheck.withLock { check in
            guard check.writesInFlight > 0 else { return false }
            check.deferred = onChange
            return true
        }
        if !deferred, changedElsewhere() { onChange() }
    }

    /// Asks whether another connection committed, for a ``StoreFileMonitor`` that then stops reading events for a
    /// moment: as ``checkChangedElsewhere(then:)``, except that when one of this store's own writes ended since the
    /// last call, and so the events that woke the monitor may all be its own, the check is not run now but left to
    /// the next own write's transaction, which answers it under the write lock (``answerDeferredCheck(_:)``), or to
    /// ``settleDeferredCheck()``, which the monitor calls when its pause ends.
    ///
    /// A stream of adds then costs no check transaction per commit, and no monitor wake-up either while the monitor
    /// pauses (it watches nothing meanwhile, and asks again when the pause ends). Another process's commit is still
    /// seen: one that ended before the check was asked changed `data_version`, which the answering transaction reads;
    /// one in progress holds the write lock, which that transaction waits for. It is seen at the next own write or
    /// when the pause ends (the next one, for a commit made while the monitor watched nothing), whichever comes first;
    /// a store with no own write since the last call answers at once.
    ///
    /// - Returns: Whether the check waits (for an own write, or for ``settleDeferredCheck()``).
    ///
    /// ```swift
    /// if store.checkChangedElsewhereOrDefer(then: onChange) { pause(); store.settleDeferredCheck() }
    /// ```
    public func checkChangedElsewhereOrDefer(then onChange: @escaping @Sendable () -> Void) -> Bool {
        let deferred = foreignCommitCheck.withLock { check in
            defer { check.ownWritesEndedAtLastCheck = check.ownWritesEnded }
            guard check.writesInFlight > 0 || check.ownWritesEnded != check.ownWritesEndedAtLastCheck else {
                return false
            }
            check.deferred = onChange
            return true
        }
        if !deferred, changedElsewhere() { onChange() }
        return deferred
    }

    /// Runs a check ``checkChangedElsewhereOrDefer(then:)`` left waiting when no own write answered it meanwhile;
    /// with a write in flight, that write answers it.
    public func settleDeferredCheck() {
        let waiting = foreignCommitCheck.withLock { check -> (@Sendable () -> Void)? in
            guard check.writesInFlight == 0 else { return nil }
            defer { check.deferred = nil }
            return check.deferred
        }
        if let waiting, changedElsewhere() { waiting() }
    }

    /// In a write transaction, before it commits: answers a deferred check when the transaction holds the write lock.
    /// - Returns: What to call after the commit (another connection committed), or `nil`.
    private func answerDeferredCheck(_ db: Database) throws -> (@Sendable () -> Void)? {
        // Only a transaction that wrote holds the lock; one that only read may have read an older snapshot.
        guard sqlite3_txn_state(db.sqliteConnection, nil) == SQLITE_TXN_WRITE,
            let onChange = foreignCommitCheck.withLock({ check in
                defer { check.deferred = nil }
                return check.deferred
            })
        else { return nil }
        return try dataVersionChanged(db) ? onChange : nil
    }

    /// Reads the connection's `data_version` and whether it differs from the last one read.
    private func dataVersionChanged(_ db: Database) throws -> Bool {
        let version = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version"))
        return seenDataVersion.withLock { seen in
            defer { seen = version }
            return seen != version
        }
    }

    /// Runs `updates` in a write transaction on GRDB's writer queue and returns its result, without blocking the
    /// caller's thread. Unlike GRDB's own `async` methods it ignores the caller's cancellation: a transaction the
    /// engine started (recording a fire, releasing claims while stopping) is always committed or rolled back as a
    /// whole, never interrupted because the task that awaited it was cancelled.
    ///
    /// It also answers a check for other processes' commits waiting for it (``checkChangedElsewhere(then:)``).
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        foreignCommitCheck.withLock { $0.writesInFlight += 1 }
        return try await withCheckedThrowingContinuation { continuation in
            writer.asyncWriteWithoutTransaction { db in
                let result = Result {
                    try Self.inImmediateTransaction(db) { (try updates(db), try self.answerDeferredCheck(db)) }
                }
                // After the commit (or the rollback), on the writer connection, outside a transaction.
                let stillDeferred = self.foreignCommitCheck.withLock { check -> (@Sendable () -> Void)? in
                    check.writesInFlight -= 1
                    check.ownWritesEnded &+= 1
                    guard check.writesInFlight == 0 else { return nil }
                    defer { check.deferred = nil }
                    return check.deferred
                }
                if case .success((_, let onChange?)) = result { onChange() }
                if let stillDeferred {
                    // The last write in flight did not answer it: check as changedElsewhere() does.
                    var changed = true
                    try? db.inTransaction(.immediate) {
                        changed = try self.dataVersionChanged(db)
                        return .commit
                    }
                    if changed { stillDeferred() }
                }
                continuation.resume(with: result.map(\.0))
            }
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (deferred on a read-only connection), committed when it returns
    /// and rolled back when it throws, as GRDB's `inTransaction(.immediate)` does (which ``write(_:)`` used), but
    /// through statements prepared once per connection: GRDB prepares its `BEGIN` and `COMMIT` again for every
    /// transaction, with its authorizer, about 3% of a spawned daemon's samples per add in `perf`. The commit is
    /// SQLite's, so durability is unchanged (`synchronous = FULL`: the log is synced before `COMMIT` returns).
    ///
    /// Like GRDB's, it refuses to commit a transaction SQLite already rolled back (after an I/O error or a full disk a
    /// statement's failure can end the transaction): `body` threw then, since no write body here ignores an error.
    /// - Throws: What `body` or SQLite threw; the transaction is then rolled back, if SQLite had not already.
    private static func inImmediateTransaction<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        // As GRDB: deferred on a read-only connection (whose writes then fail with SQLITE_READONLY), where SQLite
        // refuses an immediate transaction.
        try db.cachedStatement(sql: db.configuration.readonly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE").execute()
        do {
            let value = try body()
            guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else {
                throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back by SQLite")
            }
            try db.cachedStatement(sql: "COMMIT").execute()
            return value
        } catch {
            // A failed statement or COMMIT (SQLITE_BUSY, an I/O error) may leave the transaction open.
            if sqlite3_get_autocommit(db.sqliteConnection) == 0 { try? db.cachedStatement(sql: "ROLLBACK").execute() }
            throw error
        }
    }

    /// Runs `value` in a read transaction off the caller's thread, like ``write(_:)``.
    ///
    /// The transaction is begun and ended through statements prepared once per connection
    /// (``inReadTransaction(_:_:)``), where GRDB's `asyncRead` prepares its `BEGIN DEFERRED TRANSACTION` and `COMMIT`
    /// again for every read: 4% of the push endpoint's samples per push in `perf` (docs/benchmarks.md, session 12).
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.asyncUnsafeRead { result in
                continuation.resume(with: result.flatMap { db in Result { try Self.inReadTransaction(db, value) } })
            }
        }
    }

    /// Runs `body` in a `BEGIN DEFERRED` transaction, so that its statements read one snapshot, as GRDB's `asyncRead`
    /// does, but through statements prepared once per connection; always ended (committed, or rolled back when the
    /// commit fails), as GRDB ends it, so the reader goes back to its pool outside a transaction.
    /// - Throws: What `body` or SQLite threw.
    private static func inReadTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED").execute()
        defer {
            if sqlite3_get_autocommit(db.sqliteConnection) == 0 {
                do { try db.cachedStatement(sql: "COMMIT").execute() } catch {
                    try? db.cachedStatement(sql: "ROLLBACK").execute()
                }
            }
        }
        return try body(db)
    }

    /// Runs `value`, one SQL statement, on the caller's thread with a reader connection of the pool, outside an
    /// explicit transaction (a single statement reads one snapshot on its own); on an in-memory or read-only store
    /// (one connection, behind the writer's queue) it is ``read(_:)``.
    ///
    /// For the push endpoint's token lookup, a read of one or two rows by primary key on every push: through
    /// ``read(_:)`` it cost two hand-overs to GRDB's queues and one back to the concurrency pool, more CPU than the
    /// read itself (docs/benchmarks.md, session 12). A WAL reader never waits for the writer, so the caller's thread is
    /// held for the read alone, unless every reader of the pool is busy, when it waits for one.
    /// - Throws: What SQLite threw.
    func readOnCallersThread<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        guard let pool = writer as? DatabasePool else { return try await read(value) }
        return try Self.readNow(pool, value)
    }

    /// GRDB's blocking `unsafeRead`, from a synchronous context (in an asynchronous one its `async` overload wins).
    private static func readNow<T>(_ pool: DatabasePool, _ value: (Database) throws -> T) throws -> T {
        try pool.unsafeRead(value)
    }

    /// Closes the store's connections now, once the accesses in progress have ended; the store must not be used
    /// afterwards. A store that is simply released closes them too, but later, on one of GRDB's queues: call this when
    /// something else must find the file closed (the power-cut fixture reboots its simulated disk right after).
    public func close() throws {
        if let pool = writer as? DatabasePool { try pool.close() } else if let queue = writer as? DatabaseQueue { try queue.close() }
    }

    /// Whether `error`, thrown while opening or reading a store, says the file is damaged: not a database at all
    /// (`SQLITE_NOTADB`), or a corrupt one (`SQLITE_CORRUPT`, which also stands for a schema this version cannot
    /// read). `unotify store check` and `unotify store recover` are the answer to such a file.
    public static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// Opens a store that lives in memory only: for tests and for the `OpenUserNotificationsTesting` product.
    public init(inMemory: Void = ()) throws {
        writer = try DatabaseQueue(configuration: Self.configuration())
        try Self.migrator.migrate(writer)
    }

    /// The store's connection settings: a 10 s busy timeout, GRDB's work at the process's priority, and on a writable
    /// connection `synchronous = FULL` and the log's checkpoint at 4,000 pages. `unotify-bench` opens its baselines'
    /// connections with them too.
    package static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "OpenUserNotifications"
        // GRDB's default is `.userInitiated`, which libdispatch on Linux turns into nice -2 for the thread running a
        // transaction: the writer's SQL (most of an import's CPU) then ran ahead of the delivery loop's threads (nice
        // 0) in the process. At `.default` both run at the process's priority.
        configuration.qos = .default
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // The commit that leaves 4,000 pages in the log (16 MB) checkpoints it, not SQLite's 1,000: a
                // checkpoint syncs the log and the database file on the writer's path, and under many clients adding
                // the default ran one every ~15 group commits (64 clients on an ext4 disk: x1.15-1.32 adds/s with
                // 4,000, docs/benchmarks.md, session 15). The log is cut back to 16 MB when it starts again.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 4000")
                _ = try Row.fetchOne(db, sql: "PRAGMA journal_size_limit = 16777216")
            }
        }
        return configuration
    }

    // MARK: - Pending requests
    //
    // Floating calendar triggers do not keep their fire date in their row: all not-yet-due requests with the same
    // app and components fire at the same instant (the first match after now in the system zone), so that instant
    // lives once in `floatingPlan`, and a zone change rewrites a few plan rows instead of every request
    // (docs/proposals/0001-floating-plan-table.md). A floating row records in `firedFor` the plan instant it last
    // fired for.

    /// The columns of a pending request, with a floating row's fire date taken from its plan.
    private static let pendingColumns = """
        p.id, p.app, p.identifier, p.spec, p.addedAt, COALESCE(p.nextFire, f.nextFire) AS nextFire, p.floating,
        p.claimUntil, p.claimOwner, p.calendarKey, p.firedFor
        """
    private static let pendingJoin = "pending p LEFT JOIN floatingPlan f ON p.calendarKey = f.key"

    // MARK: - Policy
    //
    // Kept in `metadata` as `policy.pendingCap` ("off" or a number) and `policy.authorization` (a raw value).

    public func policy() async throws -> StorePolicy {
        try await read { db in try Self.policy(db) }
    }

    private static func policy(_ db: Database) throws -> StorePolicy {
        let values = try Dictionary(
            Row.fetchAll(db, sql: "SELECT key, value FROM metadata WHERE key LIKE 'policy.%'").map {
                ($0["key"] as String, $0["value"] as String)
            }, uniquingKeysWith: { first, _ in first })
        return StorePolicy(
            pendingCap: values["policy.pendingCap"].flatMap(StorePolicy.PendingCap.init),
            authorizationPolicy: values["policy.authorization"].flatMap(AuthorizationPolicy.init(rawValue:)))
    }

    /// The store's pending cap (`policy.pendingCap`), as ``policy(_:)`` reads it: `nil` when none is set, `.some(nil)`
    /// for "off". Every add's transaction asks this, so it reads the one row through a prepared statement kept on the
    /// connection: ``policy(_:)``'s query, prepared again each time, cost about 3% of a daemon add's CPU in `perf`.
    ///
    /// The row is read straight from SQLite (``firstRow(of:_:_:)``): GRDB's `fetchOne`, with its cursor and generic
    /// conversions, cost several times the query.
    private static func pendingCapSetting(_ db: Database) throws -> Int?? {
        let statement = try db.cachedStatement(sql: "SELECT value FROM metadata WHERE key = 'policy.pendingCap'")
        let text = try firstRow(of: statement, db) { handle -> String? in
            guard sqlite3_column_type(handle, 0) != SQLITE_NULL, let text = sqlite3_column_text(handle, 0) else {
                return nil
            }
            return String(cString: text)
        }
        // No row, or a NULL value: no cap set.
        return (text ?? nil).flatMap(StorePolicy.PendingCap.init).map(\.value)
    }

    /// Steps a query without arguments, or with its arguments bound straight to it (as ``bind(_:to:)`` binds a row), to
    /// its first row, reads that row with `read`, and resets the statement; `nil` when there is no row.
    ///
    /// For the queries every add's transaction asks (``pendingCapSetting(_:)``, ``deniedAppIDs(among:_:)``):
    /// GRDB's `fetchOne` builds a cursor, checks the arguments and instantiates generic metadata per call, which cost
    /// more than SQLite's own lookup (3% of a daemon's samples at 64 clients in `perf`, on the single writer's thread).
    /// Only for reading queries: GRDB sees nothing of the execution, which a statement that writes would need it to
    /// (its transaction observers).
    /// - Throws: `DatabaseError` with SQLite's code and message when the step fails.
    static func firstRow<T>(
        of statement: Statement, _ db: Database, _ read: (OpaquePointer) -> T
    ) throws -> T? {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return read(handle)
        case SQLITE_DONE: return nil
        case let code:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }

    public func setPolicy(_ policy: StorePolicy) async throws {
        try await write { db in
            for (key, value) in [
                ("policy.pendingCap", policy.pendingCap?.description),
                ("policy.authorization", policy.authorizationPolicy?.rawValue),
            ] {
                if let value {
                    try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES (?, ?)", arguments: [key, value])
                } else {
                    try db.execute(sql: "DELETE FROM metadata WHERE key = ?", arguments: [key])
                }
            }
        }
    }

    public func insertPending(_ request: PendingRequest, cap fallbackCap: Int?, at date: Date) async throws -> PendingInsertion {
        try await write { db in
            // The store's own cap wins over the caller's: read here, in the transaction that applies it.
            let cap = try Self.pendingCapSetting(db) ?? fallbackCap
            try db.execute(
                sql: "DELETE FROM pending WHERE app = ? AND identifier = ?", arguments: [request.appID, request.identifier])
            var record = try PendingRecord(request)
            try record.insert(db)
            if let key = record.calendarKey, case .calendar? = request.spec.trigger {
                try db.execute(
                    sql: Self.upsertPlan,
                    arguments: [key, request.appID, try JSON.encode(request.spec.trigger), request.nextFireDate?.timeIntervalSince1970])
            }
            var stored = request
            stored.revision = record.id!
            let discarded = try cap.map { try Self.applyCap($0, appID: request.appID, at: date, db) } ?? []
            return PendingInsertion(stored: stored, discarded: discarded)
        }
    }

    public func insertPending(batch requests: [PendingRequest], cap fallbackCap: Int?, at date: Date) async throws
        -> [PendingRequest]
    {
        try await insert(requests, cap: fallbackCap, at: date, leavingOutDenied: false).discarded
    }

    /// Reads the apps' authorization in the write transaction itself: an add costs one transaction, no read before it.
    public func insertPendingOfAllowedApps(batch requests: [PendingRequest], cap fallbackCap: Int?, at date: Date)
        async throws -> PendingBatchInsertion
    {
        try await insert(requests, cap: fallbackCap, at: date, leavingOutDenied: true)
    }

    /// Writes the claim (its lease and this process as its owner, ``processID``) into the rows as it inserts them: a
    /// push due at once costs the engine one transaction, not an insert and then a claim.
    public func insertPendingOfAllowedApps(
        batch requests: [PendingRequest], cap fallbackCap: Int?, at date: Date, claimedUntil leaseUntil: Date
    ) async throws -> PendingBatchInsertion {
        try await insert(requests, cap: fallbackCap, at: date, leavingOutDenied: true, claimedUntil: leaseUntil)
    }

    /// Batches up to this size are encoded on the caller's thread; larger ones in pieces on ``BulkExecutor``'s threads,
    /// at low priority. Handing one request to another thread costs more than encoding it.
    ///
    /// A group commit's batch holds one add per client waiting (the engine's `GroupCommit`), and its encoding is on the
    /// single writer's path. With a limit of 32, at 64 clients a third of the groups held more than 32 adds, and those
    /// waited a median of 0.46–0.50 ms (p90 1.1–1.2 ms) between being taken and their transaction's start, against
    /// 52–55 µs for the others: the low-priority threads get a core last on a machine the clients keep busy. With 128,
    /// CPU per add at 64 clients ×0.89 (lower in 8 of 11 alternating pairs), adds per second ×1.13 (higher in 7 of 11)
    /// (`unotifyd-bench` figure 2, docs/benchmarks.md, session 12).
    private static let inlineEncodingLimit = 128

    /// Stores a batch in one transaction; with `leaseUntil`, the rows are written claimed by this process until then,
    /// and the stored ones come back in ``PendingBatchInsertion/claimed``.
    private func insert(
        _ requests: [PendingRequest], cap fallbackCap: Int?, at date: Date, leavingOutDenied: Bool,
        claimedUntil leaseUntil: Date? = nil
    ) async throws -> PendingBatchInsertion {
        guard !requests.isEmpty else { return PendingBatchInsertion(discarded: [], deniedAppIDs: []) }
        let (records, plans) = try await Self.encodedBeforeTransaction(requests)
        return try await write { db in
            try Self.insert(
                records, plans: plans, of: requests, cap: fallbackCap, at: date, leavingOutDenied: leavingOutDenied,
                claimedUntil: leaseUntil, db)
        }
    }

    /// Records the fires and stores the batch in one transaction (one commit, one `fsync`), the fires first; when that
    /// transaction fails, each part in a transaction of its own, so that each part's result says whether it is
    /// stored (a failure of one part does not fail the other).
    public func completeFires(
        _ fires: [FireCompletion], insertingPending requests: [PendingRequest], cap fallbackCap: Int?, at date: Date,
        leavingOutDenied: Bool, claimedUntil leaseUntil: Date?
    ) async -> FiresAndInsertion {
        if !fires.isEmpty, !requests.isEmpty,
            let encoded = try? await Self.encodedBeforeTransaction(requests),
            let written = try? await write({ db in
                let historyIDs = try fires.map { fire in
                    try Self.complete(
                        fire.request, nextFireDate: fire.nextFireDate, delivered: fire.delivered,
                        history: fire.history, badge: fire.badge, db)
                }
                let insertion = try Self.insert(
                    encoded.0, plans: encoded.1, of: requests, cap: fallbackCap, at: date,
                    leavingOutDenied: leavingOutDenied, claimedUntil: leaseUntil, db)
                return (historyIDs, insertion)
            })
        {
            return FiresAndInsertion(historyIDs: .success(written.0), insertion: .success(written.1))
        }
        // One part only, or the shared transaction failed (nothing of it is stored): each part on its own.
        return await completeFiresSeparately(
            fires, insertingPending: requests, cap: fallbackCap, at: date, leavingOutDenied: leavingOutDenied,
            claimedUntil: leaseUntil)
    }

    /// The rows of `requests` and their plans' trigger JSON, encoded before the transaction, so the write lock is
    /// held for the SQL alone: a large batch on every core, on the engine's bulk threads at low priority, so the
    /// caller's concurrency pool stays free for what must run on time and a waking delivery loop comes first.
    private static func encodedBeforeTransaction(_ requests: [PendingRequest]) async throws
        -> ([PendingRecord], [Data?])
    {
        if requests.count <= Self.inlineEncodingLimit {
            return try Self.encoded(requests[...], encoder: JSON.makeEncoder())
        }
        return try await Self.encoded(requests)
    }

    /// Stores encoded rows (see ``insert(_:cap:at:leavingOutDenied:claimedUntil:)``) inside the caller's transaction.
    private static func insert(
        _ records: [PendingRecord], plans: [Data?], of requests: [PendingRequest], cap fallbackCap: Int?, at date: Date,
        leavingOutDenied: Bool, claimedUntil leaseUntil: Date?, _ db: Database
    ) throws -> PendingBatchInsertion {
        let denied = leavingOutDenied ? try Self.deniedAppIDs(among: records.map(\.app), db) : []
        let cap = try Self.pendingCapSetting(db) ?? fallbackCap
        // REPLACE deletes the app's request with the identifier (one earlier in the batch too) and inserts a row
        // with a new id, as insertPending's DELETE and INSERT do: the id is the revision a claim checks.
        let insert: Statement
        if let leaseUntil {
            // The claim's two values are the same for every row: bound once, kept across the rows' resets.
            insert = try db.cachedStatement(sql: Self.insertClaimedRow)
            insert.setUncheckedArguments(
                StatementArguments(
                    Array(repeating: DatabaseValue.null, count: 8)
                        + [leaseUntil.timeIntervalSince1970.databaseValue, Self.processID.databaseValue]))
        } else {
            insert = try db.cachedStatement(sql: Self.insertRow)
            insert.setUncheckedArguments(Self.unboundRow)
        }
        let plan = try db.cachedStatement(sql: Self.upsertPlan)
        // The rows' values are bound straight to the prepared statement: GRDB's `StatementArguments` would box
        // eight values into an array per row. `execute()` without arguments then steps what is bound.
        var stored: [(index: Int, revision: Int64)] = []
        for (index, record) in records.enumerated() where denied.isEmpty || !denied.contains(record.app) {
            try Self.bind(record, to: insert)
            try insert.execute()
            if leaseUntil != nil {
                if record.nextFire != nil {
                    stored.append((index, db.lastInsertedRowID))
                } else {
                    // Undated (a location trigger waiting for a crossing) or following a floating plan: stored as
                    // an ordinary row, which the loop claims when it falls due.
                    try db.execute(
                        sql: "UPDATE pending SET claimUntil = NULL, claimOwner = NULL WHERE id = ?",
                        arguments: [db.lastInsertedRowID])
                }
            }
            if let key = record.calendarKey, let trigger = plans[index] {
                try plan.execute(
                    arguments: [key, record.app, trigger, requests[index].nextFireDate?.timeIntervalSince1970])
            }
        }
        var discarded: [PendingRequest] = []
        if let cap {
            for app in Set(records.map(\.app)).subtracting(denied).sorted() {
                discarded += try Self.applyCap(cap, appID: app, at: date, db)
            }
        }
        let claimed = Self.claimedRows(stored, of: records, requests, discarded: discarded)
        return PendingBatchInsertion(discarded: discarded, deniedAppIDs: denied, claimed: claimed)
    }

    /// The batch insert of one row.
    private static let insertRow = """
        INSERT OR REPLACE INTO pending (app, identifier, spec, addedAt, nextFire, floating, calendarKey, regionState)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The batch insert of one row claimed by this process: the row's eight values, then the lease and the owner.
    private static let insertClaimedRow = """
        INSERT OR REPLACE INTO pending (
            app, identifier, spec, addedAt, nextFire, floating, calendarKey, regionState, claimUntil, claimOwner)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The requests a claimed batch stored, as a claim returns them: each with its row's revision and the dates as
    /// the row holds them (what ``claimedFireDates(revisions:)`` answers later compares equal). A request replaced by a
    /// later one of the batch (the same app and identifier) or discarded by the cap is left out.
    private static func claimedRows(
        _ stored: [(index: Int, revision: Int64)], of records: [PendingRecord], _ requests: [PendingRequest],
        discarded: [PendingRequest]
    ) -> [PendingRequest] {
        guard !stored.isEmpty else { return [] }
        // By app and identifier, without building a string of the two per row.
        struct Key: Hashable {
            var app: String
            var identifier: String
        }
        var last: [Key: Int64] = [:]
        last.reserveCapacity(stored.count)
        for (index, revision) in stored {
            last[Key(app: records[index].app, identifier: records[index].identifier)] = revision
        }
        let gone = Set(discarded.map(\.revision))
        return stored.compactMap { index, revision in
            let record = records[index]
            guard last[Key(app: record.app, identifier: record.identifier)] == revision, !gone.contains(revision) else {
                return nil
            }
            return PendingRequest(
                appID: record.app, spec: requests[index].spec, addedAt: Date(timeIntervalSince1970: record.addedAt),
                nextFireDate: record.nextFire.map(Date.init(timeIntervalSince1970:)), revision: revision)
        }
    }

    /// Eight `NULL`s: what the batch insert's statement holds between rows.
    private static let unboundRow = StatementArguments(Array(repeating: DatabaseValue.null, count: 8))

    /// Binds a row's values to the batch insert's eight parameters, in its column order.
    private static func bind(_ record: PendingRecord, to statement: Statement) throws {
        let handle = statement.sqliteStatement
        // A statement that ran must be reset before it takes new values (`execute()` resets it again: harmless).
        // Its error, if any, is the last step's, which `execute()` already threw.
        sqlite3_reset(handle)
        try checkBinding(record.app.bind(to: handle, at: 1))
        try checkBinding(record.identifier.bind(to: handle, at: 2))
        try checkBinding(record.spec.bind(to: handle, at: 3))
        try checkBinding(record.addedAt.bind(to: handle, at: 4))
        try checkBinding((record.nextFire?.databaseValue ?? .null).bind(to: handle, at: 5))
        try checkBinding(record.floating.bind(to: handle, at: 6))
        try checkBinding((record.calendarKey?.databaseValue ?? .null).bind(to: handle, at: 7))
        try checkBinding((record.regionState?.databaseValue ?? .null).bind(to: handle, at: 8))
    }

    /// Throws when an `sqlite3_bind_*` call did not answer `SQLITE_OK` (SQLite documents it only for misuse and
    /// out-of-memory).
    private static func checkBinding(_ code: CInt) throws {
        guard code != ResultCode.SQLITE_OK.rawValue else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "binding a pending row's value failed")
    }

    /// The apps among `appIDs` denied notifications.
    ///
    /// Every add's transaction asks this for its one app: the app is bound straight to the prepared statement, as
    /// ``bind(_:to:)`` binds a row (GRDB's `StatementArguments`, built and checked per query, cost as much as the
    /// query itself), and a batch of one app's requests asks once.
    ///
    /// A group commit asks it for each app with an add in the transaction (at 64 clients, some twenty apps per
    /// transaction): the rows are stepped straight in SQLite (``firstRow(of:_:_:)``), without GRDB's `fetchOne`.
    private static func deniedAppIDs(among appIDs: [String], _ db: Database) throws -> Set<String> {
        let statement = try db.cachedStatement(
            sql: "SELECT 1 FROM app WHERE id = ? AND authorization = \(AuthorizationStatus.denied.rawValue)")
        var denied = Set<String>()
        var asked = Set<String>()
        for appID in appIDs where asked.insert(appID).inserted {
            // As in bind(_:to:): reset before binding (firstRow resets it after its step, too).
            sqlite3_reset(statement.sqliteStatement)
            try checkBinding(appID.bind(to: statement.sqliteStatement, at: 1))
            if try firstRow(of: statement, db, { _ in true }) != nil { denied.insert(appID) }
        }
        return denied
    }

    /// The rows of `requests` and, for floating calendar triggers, their plans' trigger JSON: encoded in chunks
    /// on every core (JSON encoding costs more than the SQL), on ``BulkExecutor/shared``'s low-priority threads.
    private static func encoded(_ requests: [PendingRequest]) async throws -> ([PendingRecord], [Data?]) {
        let chunk = 2_048
        let chunks = (requests.count + chunk - 1) / chunk
        let parts = try await BulkExecutor.shared.perform(iterations: chunks) { part in
            try encoded(requests[part * chunk..<min((part + 1) * chunk, requests.count)], encoder: JSON.makeEncoder())
        }
        var records: [PendingRecord] = []
        var plans: [Data?] = []
        records.reserveCapacity(requests.count)
        plans.reserveCapacity(requests.count)
        for (partRecords, partPlans) in parts {
            records += partRecords
            plans += partPlans
        }
        return (records, plans)
    }

    /// The rows of `requests` and their plans' trigger JSON, encoded on this thread.
    private static func encoded(_ requests: ArraySlice<PendingRequest>, encoder: JSONEncoder) throws
        -> ([PendingRecord], [Data?])
    {
        var records: [PendingRecord] = []
        var plans: [Data?] = []
        records.reserveCapacity(requests.count)
        plans.reserveCapacity(requests.count)
        for request in requests {
            let record = try PendingRecord(request, encoder: encoder)
            records.append(record)
            plans.append(record.calendarKey == nil ? nil : try encoder.encode(request.spec.trigger))
        }
        return (records, plans)
    }

    /// A floating calendar trigger's plan: created, or moved to the sooner of its instant and the new request's.
    private static let upsertPlan = """
        INSERT INTO floatingPlan (key, app, trigger, nextFire) VALUES (?, ?, ?, ?)
        ON CONFLICT(key) DO UPDATE SET nextFire = MIN(COALESCE(nextFire, excluded.nextFire), excluded.nextFire)
        """

    /// Keeps the app's `cap` soonest-firing dated requests, deleting the others with a `discarded` history entry.
    /// - Returns: The deleted requests.
    private static func applyCap(_ cap: Int, appID: String, at date: Date, _ db: Database) throws -> [PendingRequest] {
        let excess = try PendingRecord.fetchAll(
            db,
            sql: """
                SELECT \(Self.pendingColumns) FROM \(Self.pendingJoin)
                WHERE p.app = ? AND COALESCE(p.nextFire, f.nextFire) IS NOT NULL
                ORDER BY COALESCE(p.nextFire, f.nextFire), p.id LIMIT -1 OFFSET ?
                """,
            arguments: [appID, max(cap, 0)])
        var discarded: [PendingRequest] = []
        for record in excess {
            _ = try record.delete(db)
            guard let request = try? record.request() else { continue }  // unreadable: dropped, no history
            discarded.append(request)
            var entry = try HistoryRecord(
                HistoryEntry(
                    appID: request.appID, requestIdentifier: request.identifier, title: request.spec.content.title,
                    dueDate: request.nextFireDate, actedAt: date, presenter: "none", presentation: [],
                    outcome: .discarded, detail: "more than \(cap) pending requests; the soonest \(cap) are kept"))
            try entry.insert(db)
        }
        if !excess.isEmpty { try pruneFloatingPlans(db) }
        return discarded
    }

    /// Deletes plans that no request follows any more.
    private static func pruneFloatingPlans(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM floatingPlan WHERE NOT EXISTS (
                    SELECT 1 FROM pending WHERE calendarKey = floatingPlan.key AND calendarKey IS NOT NULL)
                """)
    }

    public func pendingRequests(appID: String) async throws -> [PendingRequest] {
        try await read { db in
            try PendingRecord.fetchAll(
                db, sql: "SELECT \(Self.pendingColumns) FROM \(Self.pendingJoin) WHERE p.app = ? ORDER BY p.id",
                arguments: [appID]
            ).readableRequests()
        }
    }

    public func removePending(appID: String, identifiers: [String]?) async throws -> [PendingRequest] {
        try await write { db in
            let records: [PendingRecord]
            if let identifiers {
                records = try PendingRecord.filter(Column("app") == appID && identifiers.contains(Column("identifier")))
                    .fetchAll(db)
            } else {
                records = try PendingRecord.filter(Column("app") == appID).fetchAll(db)
            }
            for record in records { _ = try record.delete(db) }
            if records.contains(where: { $0.calendarKey != nil }) { try Self.pruneFloatingPlans(db) }
            return records.readableRequests()
        }
    }

    public func nextWakeDate(appID: String?) async throws -> Date? {
        try await read { db in
            let scope = appID == nil ? "" : " AND app = ?"
            let arguments: StatementArguments = appID.map { [$0] } ?? []
            // Prepared once per connection (two variants each): the loop asks this on every pass.
            let fire = try Double.fetchOne(
                db.cachedStatement(sql: "SELECT MIN(nextFire) FROM pending WHERE claimUntil IS NULL" + scope),
                arguments: arguments)
            let claim = try Double.fetchOne(
                db.cachedStatement(sql: "SELECT MIN(claimUntil) FROM pending WHERE claimUntil IS NOT NULL" + scope),
                arguments: arguments)
            // A plan counts while one of its requests still has to fire for it and is not being delivered.
            let plan = try Double.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MIN(f.nextFire) FROM floatingPlan f WHERE 1\(appID == nil ? "" : " AND f.app = ?") AND EXISTS (
                            SELECT 1 FROM pending p WHERE p.calendarKey = f.key AND p.calendarKey IS NOT NULL AND p.claimUntil IS NULL
                            AND (p.firedFor IS NULL OR p.firedFor < f.nextFire))
                        """),
                arguments: arguments)
            return [fire, claim, plan].compactMap { $0 }.min().map(Date.init(timeIntervalSince1970:))
        }
    }

    public func claimDue(at date: Date, leaseUntil: Date, limit: Int, appID: String?) async throws -> [PendingRequest] {
        try await claimDue(at: date, dueBy: date, leaseUntil: leaseUntil, limit: limit, appID: appID)
    }

    public func claimDue(at date: Date, dueBy horizon: Date, leaseUntil: Date, limit: Int, appID: String?) async throws
        -> [PendingRequest]
    {
        try await write { db in
            let now = date.timeIntervalSince1970
            let dueBy = max(horizon, date).timeIntervalSince1970
            let scope = appID == nil ? "" : " AND p.app = ?"
            let app: StatementArguments = appID.map { [$0] } ?? []
            var records = try PendingRecord.fetchAll(
                db,
                sql: """
                    SELECT \(Self.pendingColumns) FROM \(Self.pendingJoin)
                    WHERE p.claimUntil IS NULL AND p.nextFire <= ?\(scope) ORDER BY p.nextFire LIMIT ?
                    """,
                arguments: [dueBy] + app + [limit])
            records += try PendingRecord.fetchAll(
                db,
                sql: """
                    SELECT \(Self.pendingColumns) FROM floatingPlan f CROSS JOIN pending p
                    WHERE p.calendarKey = f.key AND p.calendarKey IS NOT NULL
                    AND f.nextFire <= ? AND p.claimUntil IS NULL AND p.addedAt < f.nextFire
                    AND (p.firedFor IS NULL OR p.firedFor < f.nextFire)\(scope) ORDER BY f.nextFire LIMIT ?
                    """,
                arguments: [dueBy] + app + [max(0, limit - records.count)])
            records += try PendingRecord.fetchAll(
                db,
                sql: """
                    SELECT \(Self.pendingColumns) FROM \(Self.pendingJoin)
                    WHERE p.claimUntil IS NOT NULL AND p.claimUntil <= ?\(scope) ORDER BY p.claimUntil LIMIT ?
                    """,
                arguments: [now] + app + [max(0, limit - records.count)])
            let claim = try db.cachedStatement(sql: "UPDATE pending SET claimUntil = ?, claimOwner = ? WHERE id = ?")
            for record in records {
                try claim.execute(arguments: [leaseUntil.timeIntervalSince1970, Self.processID, record.id])
            }
            return records.readableRequests()
        }
    }

    public func claimedFireDates(revisions: [Int64]) async throws -> [Int64: Date] {
        guard !revisions.isEmpty else { return [:] }
        // The revisions as one JSON array, so that one statement, prepared once per connection, serves every count:
        // the loop asks this on every pass that holds requests (pushes stored claimed), and compiling a statement with
        // as many parameters as revisions cost more than the query.
        let list = "[" + revisions.map(String.init).joined(separator: ",") + "]"
        return try await read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: Self.claimedFireDatesQuery), arguments: [list, Self.processID])
            var dates: [Int64: Date] = [:]
            for row in rows {
                if let fire = row["nextFire"] as Double? { dates[row["id"]] = Date(timeIntervalSince1970: fire) }
            }
            return dates
        }
    }

    /// The fire dates of the rows among a JSON array of ids that this process claims.
    private static let claimedFireDatesQuery = """
        SELECT p.id, COALESCE(p.nextFire, f.nextFire) AS nextFire FROM \(pendingJoin)
        WHERE p.id IN (SELECT value FROM json_each(?)) AND p.claimUntil IS NOT NULL AND p.claimOwner = ?
        """

    public func releaseClaims(revisions: [Int64]) async throws {
        guard !revisions.isEmpty else { return }
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE pending SET claimUntil = NULL, claimOwner = NULL
                    WHERE id IN (\(databaseQuestionMarks(count: revisions.count))) AND claimOwner = ?
                    """,
                arguments: StatementArguments(revisions) + [Self.processID])
        }
    }

    /// Renews, in one `UPDATE ... RETURNING`, the claims this process (``processID``) holds on these revisions.
    public func renewClaims(revisions: [Int64], leaseUntil: Date) async throws -> [Int64] {
        guard !revisions.isEmpty else { return [] }
        return try await write { db in
            try Int64.fetchAll(
                db,
                sql: """
                    UPDATE pending SET claimUntil = MAX(claimUntil, ?)
                    WHERE id IN (\(databaseQuestionMarks(count: revisions.count))) AND claimUntil IS NOT NULL
                    AND claimOwner = ? RETURNING id
                    """,
                arguments: [leaseUntil.timeIntervalSince1970] + StatementArguments(revisions) + [Self.processID])
        }
    }

    @discardableResult
    public func completeFire(
        _ request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?
    ) async throws -> Int64 {
        try await write { db in
            try Self.complete(request, nextFireDate: nextFireDate, delivered: delivered, history: history, badge: badge, db)
        }
    }

    /// Records the fires as ``completeFire(_:nextFireDate:delivered:history:badge:)`` records each, one after the
    /// other, in **one** transaction: the engine's recorder hands over every fire that queued up while it wrote the
    /// previous ones (many pushes fall due together), and each transaction costs a commit and an `fsync`. All of them
    /// are recorded or, when one fails, none: their claims then end with their leases and they are delivered again
    /// (at least once).
    ///
    /// ```swift
    /// let historyIDs = try await store.completeFires(fires)   // in the order of `fires`
    /// ```
    /// - Returns: The history entries' identifiers, in the order of `fires`.
    @discardableResult
    public func completeFires(_ fires: [FireCompletion]) async throws -> [Int64] {
        guard !fires.isEmpty else { return [] }
        return try await write { db in
            try fires.map { fire in
                try Self.complete(
                    fire.request, nextFireDate: fire.nextFireDate, delivered: fire.delivered, history: fire.history,
                    badge: fire.badge, db)
            }
        }
    }

    /// One fire's recording, inside the caller's transaction.
    private static func complete(
        _ request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?, _ db: Database
    ) throws -> Int64 {
        switch (nextFireDate, request.isFloating) {
        case (nil, _) where Self.isRepeatingLocation(request):
            // Waits, undated, for its next crossing, unless a newer crossing made it due again meanwhile.
            try db.cachedStatement(
                sql: """
                    UPDATE pending SET claimUntil = NULL, claimOwner = NULL,
                    nextFire = CASE WHEN nextFire > ? THEN nextFire ELSE NULL END WHERE id = ?
                    """
            ).execute(
                arguments: [request.nextFireDate?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude, request.revision])
        case (nil, _):
            // Every statement of a fire's recording is prepared once per connection: compiling them (GRDB's
            // `execute(sql:)` does for every call) cost more than running them.
            try db.cachedStatement(sql: "DELETE FROM pending WHERE id = ?").execute(arguments: [request.revision])
            if request.isFloating { try Self.pruneFloatingPlans(db) }
        case (_?, true):
            // The plan moves on once every request following it has fired (see advanceFloatingPlans).
            try db.cachedStatement(
                sql: "UPDATE pending SET claimUntil = NULL, claimOwner = NULL, firedFor = ? WHERE id = ?"
            ).execute(arguments: [request.nextFireDate?.timeIntervalSince1970, request.revision])
        case (let next?, false):
            try db.cachedStatement(
                sql: "UPDATE pending SET nextFire = ?, claimUntil = NULL, claimOwner = NULL WHERE id = ?"
            ).execute(arguments: [next.timeIntervalSince1970, request.revision])
        }
        let historyID = try HistoryRecord(history).inserted(db)
        if var delivered {
            delivered.historyID = historyID
            try DeliveredRecord(delivered).replace(db)
        }
        if let badge {
            try db.cachedStatement(
                sql: """
                    INSERT INTO app (id, authorization, grantedOptions, badge) VALUES (?, 0, 0, ?)
                    ON CONFLICT(id) DO UPDATE SET badge = excluded.badge
                    """
            ).execute(arguments: [request.appID, badge])
        }
        return historyID
    }

    // MARK: - Location triggers
    //
    // A location request's row has `regionState` set ('unknown' until a fix decides) and no `nextFire` while it
    // waits for a crossing; a crossing that notifies sets `nextFire`, and the claim/complete path delivers it.

    public func locationRequests(appID: String?) async throws -> [LocationRequestState] {
        try await read { db in
            let scope = appID == nil ? "" : " AND app = ?"
            return try PendingRecord.fetchAll(
                db, sql: "SELECT * FROM pending WHERE regionState IS NOT NULL\(scope) ORDER BY id",
                arguments: appID.map { [$0] } ?? []
            ).compactMap { record in
                // An unreadable row is left out, not allowed to hide the others (see `readableRequests`).
                (try? record.request()).map { request in
                    LocationRequestState(
                        request: request, state: record.regionState.flatMap(RegionState.init(rawValue:)) ?? .unknown)
                }
            }
        }
    }

    public func updateRegionStates(_ updates: [RegionStateUpdate]) async throws {
        guard !updates.isEmpty else { return }
        try await write { db in
            for update in updates {
                try db.execute(
                    sql: """
                        UPDATE pending SET regionState = ?, nextFire = COALESCE(?, nextFire)
                        WHERE id = ? AND regionState IS NOT NULL
                        """,
                    arguments: [update.state.rawValue, update.dueAt?.timeIntervalSince1970, update.revision])
            }
        }
    }

    /// Whether a request has a repeating location trigger, which stays pending after each fire.
    private static func isRepeatingLocation(_ request: PendingRequest) -> Bool {
        if case .location(_, repeats: true)? = request.spec.trigger { return true }
        return false
    }

    public func releaseAbandonedClaims() async throws -> Int {
        try await write { db in
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

    public func floatingPlans(dueAfter date: Date) async throws -> [FloatingPlan] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT key, app, trigger, nextFire FROM floatingPlan WHERE nextFire > ?",
                arguments: [date.timeIntervalSince1970]
            ).map(Self.plan)
        }
    }

    public func exhaustedFloatingPlans(at date: Date, appID: String?) async throws -> [FloatingPlan] {
        try await read { db in
            // Prepared once per connection (two texts, with and without the app): the loop asks on every pass that
            // finds nothing due, under a stream of pushes hundreds of times a second.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT key, app, trigger, nextFire FROM floatingPlan f WHERE f.nextFire <= ?\(appID == nil ? "" : " AND f.app = ?")
                    AND NOT EXISTS (
                        SELECT 1 FROM pending p WHERE p.calendarKey = f.key AND p.calendarKey IS NOT NULL
                        AND p.addedAt < f.nextFire
                        AND (p.firedFor IS NULL OR p.firedFor < f.nextFire))
                    """)
            return try Row.fetchAll(statement, arguments: [date.timeIntervalSince1970] + (appID.map { [$0] } ?? []))
                .map(Self.plan)
        }
    }

    public func updateFloatingPlans(_ updates: [FloatingPlanUpdate]) async throws {
        try await write { db in
            let move = try db.cachedStatement(sql: "UPDATE floatingPlan SET nextFire = ? WHERE key = ?")
            for update in updates {
                if let next = update.nextFireDate {
                    try move.execute(arguments: [next.timeIntervalSince1970, update.key])
                } else {
                    // Never matches again: what follows the plan has fired for good.
                    try db.execute(sql: "DELETE FROM pending WHERE calendarKey = ?", arguments: [update.key])
                    try db.execute(sql: "DELETE FROM floatingPlan WHERE key = ?", arguments: [update.key])
                }
            }
            try Self.pruneFloatingPlans(db)
        }
    }

    public func replanFloatingPlans(
        dueAfter date: Date, nextFireDate: @escaping @Sendable (TriggerSpec) throws -> Date?
    ) async throws -> Int {
        try await write { db in
            let after = date.timeIntervalSince1970
            // Plans of different apps with the same components share a trigger: one date, one statement for all.
            let triggers = try Data.fetchAll(
                db, sql: "SELECT DISTINCT trigger FROM floatingPlan WHERE nextFire > ?", arguments: [after])
            let move = try db.cachedStatement(
                sql: "UPDATE floatingPlan SET nextFire = ? WHERE trigger = ? AND nextFire > ?")
            var moved = 0
            for encoded in triggers {
                if let next = try nextFireDate(JSON.decode(TriggerSpec.self, from: encoded)) {
                    try move.execute(arguments: [next.timeIntervalSince1970, encoded, after])
                    moved += db.changesCount
                } else {
                    // Never matches again: what follows these plans has fired for good.
                    try db.execute(
                        sql: """
                            DELETE FROM pending WHERE calendarKey IN (
                                SELECT key FROM floatingPlan WHERE trigger = ? AND nextFire > ?)
                            """,
                        arguments: [encoded, after])
                    try db.execute(
                        sql: "DELETE FROM floatingPlan WHERE trigger = ? AND nextFire > ?", arguments: [encoded, after])
                    moved += db.changesCount
                }
            }
            return moved
        }
    }

    private static func plan(_ row: Row) throws -> FloatingPlan {
        FloatingPlan(
            key: row["key"], appID: row["app"], trigger: try JSON.decode(TriggerSpec.self, from: row["trigger"]),
            nextFireDate: (row["nextFire"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    public func pendingCount() async throws -> Int {
        try await read { db in try PendingRecord.fetchCount(db) }
    }

    public func pendingCounts() async throws -> [String: Int] {
        try await read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT app, COUNT(*) AS n FROM pending GROUP BY app")
                    .map { ($0["app"] as String, $0["n"] as Int) })
        }
    }

    // MARK: - Delivered notifications

    public func deliveredNotifications(appID: String) async throws -> [DeliveredNotification] {
        try await read { db in
            // Equal dates in the order their fires were recorded (a replacement updates its row in place).
            try DeliveredRecord.fetchAll(
                db, sql: "SELECT * FROM delivered WHERE app = ? ORDER BY date, historyID", arguments: [appID]
            ).readableNotifications()
        }
    }

    public func removeDelivered(appID: String, identifiers: [String]?, outcome: HistoryEntry.Outcome) async throws
        -> [DeliveredNotification]
    {
        try await write { db in
            var request = DeliveredRecord.filter(Column("app") == appID)
            if let identifiers { request = request.filter(identifiers.contains(Column("identifier"))) }
            let records = try request.fetchAll(db)
            for record in records {
                _ = try record.delete(db)
                try db.execute(
                    sql: "UPDATE history SET outcome = ? WHERE id = ? AND outcome = ?",
                    arguments: [outcome.rawValue, record.historyID, HistoryEntry.Outcome.delivered.rawValue])
            }
            return records.readableNotifications()
        }
    }

    // MARK: - Responses

    public func recordResponse(_ response: ResponseSpec, outcome: HistoryEntry.Outcome, enqueue: Bool) async throws {
        try await write { db in
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

    public func queuedResponses(appID: String) async throws -> [QueuedResponse] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, payload FROM response WHERE app = ? ORDER BY id", arguments: [appID])
                .map { QueuedResponse(id: $0["id"], response: try JSON.decode(ResponseSpec.self, from: $0["payload"])) }
        }
    }

    public func removeQueuedResponse(id: Int64) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM response WHERE id = ?", arguments: [id]) }
    }

    // MARK: - Categories and apps

    public func setCategories(_ categories: [CategorySpec], appID: String) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO category (app, payload) VALUES (?, ?)",
                arguments: [appID, try JSON.encode(categories)])
        }
    }

    public func categories(appID: String) async throws -> [CategorySpec] {
        try await read { db in
            guard
                let payload = try Data.fetchOne(
                    db.cachedStatement(sql: "SELECT payload FROM category WHERE app = ?"), arguments: [appID])
            else { return [] }
            return try JSON.decode([CategorySpec].self, from: payload)
        }
    }

    public func appState(appID: String) async throws -> AppState? {
        // Prepared once per connection: the loop reads an app's state for every batch it presents.
        try await read { db in
            try AppRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM app WHERE id = ?"), arguments: [appID])?.state
        }
    }

    public func saveAppState(_ state: AppState) async throws {
        try await write { db in try AppRecord(state).save(db) }
    }

    public func allAppStates() async throws -> [AppState] {
        try await read { db in try AppRecord.order(Column("id")).fetchAll(db).map(\.state) }
    }

    // MARK: - History and metadata

    public func history(appID: String?, limit: Int) async throws -> [HistoryEntry] {
        try await read { db in
            var request = HistoryRecord.order(Column("id").desc).limit(limit)
            if let appID { request = request.filter(Column("app") == appID) }
            return try request.fetchAll(db).map { $0.entry() }
        }
    }

    public func appendHistory(_ entry: HistoryEntry) async throws {
        try await write { db in _ = try HistoryRecord(entry).inserted(db) }
    }

    public func metadata(_ key: String) async throws -> String? {
        try await read { db in try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = ?", arguments: [key]) }
    }

    /// The values, read with one statement (one snapshot) on the caller's thread (``readOnCallersThread(_:)``): a
    /// push's token lookup reads two keys per request.
    public func metadata(keys: [String]) async throws -> [String: String] {
        guard !keys.isEmpty else { return [:] }
        return try await readOnCallersThread { db in
            var values: [String: String] = [:]
            // Prepared once per connection for the few counts callers use (a push's token lookup reads two keys).
            let sql = "SELECT key, value FROM metadata WHERE key IN (\(databaseQuestionMarks(count: keys.count)))"
            let statement = keys.count <= 4 ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(keys))
            while let row = try rows.next() { values[row["key"]] = row["value"] as String }
            return values
        }
    }

    public func setMetadata(_ key: String, _ value: String) async throws {
        try await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }
}
