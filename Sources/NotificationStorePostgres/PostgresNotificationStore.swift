import Foundation
import Logging
import NotificationEngine
import NotificationLocation
import NotificationModel
import PostgresNIO

/// The PostgreSQL implementation of ``NotificationStore``, for server mode: several workers, each with its own
/// store instance (its own connection pool), share one database.
///
/// Each method is one transaction with the SQLite store's semantics (the store conformance suite runs the same
/// tests against both). What is particular to a shared, networked database:
///
/// - **Claims.** ``claimDue(at:dueBy:leaseUntil:limit:appID:)`` selects due rows `FOR UPDATE SKIP LOCKED`, so
///   workers claiming at the same time each get different requests and never wait for each other; a claim names its
///   store instance (``owner``), and one never completed expires with its lease, after which any worker takes it.
/// - **Per-app serialization.** Transactions that replace, cap or remove an app's requests, or end the floating
///   plans they follow, take a transaction-scoped advisory lock on the app, so the pending cap read from the store's
///   policy holds across workers and a plan is never dropped while another worker adds a request following it. A
///   re-plan of every floating plan (a zone change) takes an exclusive lock those transactions share.
/// - **Abandoned claims.** A worker on another machine cannot be asked whether it still runs, so
///   ``releaseAbandonedClaims()`` releases nothing: a dead worker's claims come back when their lease ends.
///
/// Call ``run()`` in a long-running task (it runs the connection pool), or use
/// ``withStore(configuration:owner:logger:connectionWait:callDeadline:_:)``, which does that for the duration of a
/// closure.
///
/// ```swift
/// let configuration = PostgresClient.Configuration(
///     host: "db.internal", username: "unotify", password: secret, database: "unotify", tls: .disable)
/// try await PostgresNotificationStore.withStore(configuration: configuration) { store in
///     _ = try await store.insertPending(request, cap: nil, at: .now)
/// }
/// ```
public final class PostgresNotificationStore: NotificationStore {
    /// The connection pool.
    let client: PostgresClient
    let logger: Logger
    /// The name this store instance writes into the claims it takes.
    public let owner: String
    /// How long a call waits for a pooled connection before it fails with ``EngineError/Code-swift.enum/storeFailure``
    /// (see `ConnectionLease`).
    public let connectionWait: Duration
    /// How long a call may run on its connection before it fails with ``EngineError/Code-swift.enum/storeFailure``
    /// and the connection is closed; `nil` for no limit (see `ConnectionLease`). ``migrate()`` has no limit.
    public let callDeadline: Duration?
    /// Leases the pool's connections to calls, within ``connectionWait`` and ``callDeadline``.
    let lease: ConnectionLease

    /// Creates a store on a database; nothing is connected until ``run()`` runs and ``migrate()`` is called.
    ///
    /// - Parameters:
    ///   - configuration: Where the database is and how to log in.
    ///   - owner: The name written into this instance's claims; a new UUID by default. Two instances must never
    ///     share one.
    ///   - logger: Where the pool logs.
    ///   - connectionWait: How long a call waits for a pooled connection (the database is down, or every connection
    ///     is busy) before it fails with ``EngineError/Code-swift.enum/storeFailure``; PostgresNIO alone would keep
    ///     it waiting a minute.
    ///   - callDeadline: How long a call may run once it has its connection before it fails with
    ///     ``EngineError/Code-swift.enum/storeFailure`` and the connection is closed: a server that stopped answering
    ///     without closing the connection (a network cut) would otherwise keep the call waiting until TCP gives up.
    ///     Raise it when single calls are expected to take longer (very large batches); `nil` for no limit. A call
    ///     whose connection closes fails at once, whatever this is.
    ///   - idleTransactionTimeout: How long the server lets one of this store's transactions sit idle between two
    ///     statements before it ends the session (PostgreSQL's `idle_in_transaction_session_timeout`, sent when each
    ///     connection starts; `nil` leaves the server's setting). A process frozen in the middle of a transaction (a
    ///     suspended machine, a stopped process, a network cut that heals) otherwise keeps that transaction's row and
    ///     advisory locks for as long as it is frozen, which no lease bounds: the rows a claim had locked are skipped
    ///     by every other worker, and the apps a recording had locked wait. Keep it under the claim lease, so that a
    ///     claim a frozen worker had not committed is ended before the rows it marked could be claimed again. The
    ///     store's transactions never wait between statements for anything but their own process.
    public init(
        configuration: PostgresClient.Configuration, owner: String = UUID().uuidString,
        logger: Logger = Logger(label: "OpenUserNotifications.PostgresStore"),
        connectionWait: Duration = .seconds(15), callDeadline: Duration? = .seconds(120),
        idleTransactionTimeout: Duration? = .seconds(10)
    ) {
        var configuration = configuration
        if let idleTransactionTimeout {
            let milliseconds = max(1, Int(idleTransactionTimeout / .milliseconds(1)))
            configuration.options.additionalStartupParameters.append(
                ("idle_in_transaction_session_timeout", "\(milliseconds)"))
        }
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.owner = owner
        self.connectionWait = connectionWait
        self.callDeadline = callDeadline
        lease = ConnectionLease(client: client, wait: connectionWait, logger: logger)
    }

    /// Runs the connection pool until the task is cancelled; the store answers only while this runs.
    public func run() async {
        await client.run()
    }

    /// Brings the database's schema up to date (see `schema_version`); safe to call from several workers at once.
    ///
    /// - Throws: ``SchemaError`` when the database was migrated by a newer version.
    public func migrate() async throws {
        // A migration may rewrite large tables: it runs as long as it takes.
        try await transaction(bounded: false) { connection, logger in
            // Nor is it ended for a pause between two of its statements (idleTransactionTimeout is for the frozen).
            try await connection.query("SET LOCAL idle_in_transaction_session_timeout = 0", logger: logger)
            try await Self.applyMigrations(connection, logger: logger)
        }
    }

    /// Runs `body` with a migrated store whose pool runs for the duration of the call.
    ///
    /// - Throws: What migrating or `body` throws.
    public static func withStore<T: Sendable>(
        configuration: PostgresClient.Configuration, owner: String = UUID().uuidString,
        logger: Logger = Logger(label: "OpenUserNotifications.PostgresStore"), connectionWait: Duration = .seconds(15),
        callDeadline: Duration? = .seconds(120), idleTransactionTimeout: Duration? = .seconds(10),
        _ body: (PostgresNotificationStore) async throws -> T
    ) async throws -> T {
        let store = PostgresNotificationStore(
            configuration: configuration, owner: owner, logger: logger, connectionWait: connectionWait,
            callDeadline: callDeadline, idleTransactionTimeout: idleTransactionTimeout)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            try await store.migrate()
            return try await body(store)
        }
    }

    // MARK: - Transactions

    /// Runs `body` in one transaction on a pooled connection: committed when it returns, rolled back when it throws
    /// (then its error is rethrown as is). Like the SQLite store's, it ignores the caller's cancellation: a
    /// transaction the engine started is committed or rolled back as a whole. A serialization failure or deadlock
    /// the server reports is retried a few times.
    ///
    /// It fails with ``EngineError/Code-swift.enum/storeFailure`` when no connection comes within ``connectionWait``,
    /// when the connection closes during the call, or (when `bounded`) when the call outlives ``callDeadline``: then
    /// whether the transaction committed is unknown (its `COMMIT` may have reached the server).
    @discardableResult
    func transaction<T: Sendable>(
        bounded: Bool = true, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let lease = lease
        let logger = logger
        let deadline = bounded ? callDeadline : nil
        return try await Task {
            var attempt = 0
            while true {
                attempt += 1
                do {
                    return try await lease.run(deadline: deadline) { connection in
                        try await connection.query("BEGIN", logger: logger)
                        do {
                            let value = try await body(connection, logger)
                            try await connection.query("COMMIT", logger: logger)
                            return value
                        } catch {
                            // A closed connection has no transaction left to roll back, and PostgresNIO would never
                            // answer a query written to it.
                            if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
                            throw error
                        }
                    }
                } catch let error as PSQLError where attempt < 5 && Self.isRetryable(error) {
                    continue
                }
            }
        }.value
    }

    /// Runs `body`, a single statement that only reads, on a pooled connection without `BEGIN` and `COMMIT` (a
    /// statement is atomic on its own; this saves two round trips), ignoring the caller's cancellation and failing
    /// like ``transaction(bounded:_:)``.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T
    {
        let lease = lease
        let logger = logger
        let deadline = callDeadline
        return try await Task {
            try await lease.run(deadline: deadline) { connection in try await body(connection, logger) }
        }.value
    }

    /// Serialization failures and deadlocks: the transaction may simply be run again.
    private static func isRetryable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// The advisory lock key every per-app transaction shares and a full re-plan takes exclusively.
    static let planLock: Int64 = 0x4F55_4E5F_504C_414E
    /// The first half of an app's advisory lock key (the second is the hash of its identifier).
    static let appLockClass: Int32 = 0x4F55_4E41

    /// The most apps a transaction locks one by one; a transaction over more apps (a large batch) takes the plan lock
    /// exclusively instead, since each advisory lock takes a slot of the server's lock table, which
    /// `max_locks_per_transaction` bounds.
    static let appLockLimit = 32

    /// Takes the shared plan lock, then each app's lock in a fixed order (so two transactions never deadlock); for
    /// more than ``appLockLimit`` apps, the plan lock exclusively, which excludes every other per-app transaction.
    static func lockApps(_ apps: some Sequence<String>, _ connection: PostgresConnection, _ logger: Logger) async throws
    {
        let apps = Set(apps)
        guard apps.count <= appLockLimit else {
            try await connection.query("SELECT pg_advisory_xact_lock(\(planLock))", logger: logger)
            return
        }
        // One statement (one round trip); PostgreSQL evaluates a select list from left to right.
        var binds = PostgresBindings()
        binds.append(planLock)
        binds.append(appLockClass)
        var calls = ["pg_advisory_xact_lock_shared($1)"]
        for app in apps.sorted() {
            binds.append(app)
            calls.append("pg_advisory_xact_lock($2, hashtext($\(binds.count)))")
        }
        try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT " + calls.joined(separator: ", "), binds: binds), logger: logger)
    }

    // MARK: - Rows
    //
    // Floating calendar triggers do not keep their fire date in their row: it lives once in `floating_plan`, shared
    // by the app's requests with the same components (docs/proposals/0001-floating-plan-table.md); a floating row
    // records in `fired_for` the plan instant it last fired for.

    /// The columns of a pending request, with a floating row's fire date taken from its plan (see ``PendingRow``).
    static let pendingColumns =
        "p.id, p.app, p.spec, p.added_at, COALESCE(p.next_fire, f.next_fire), p.calendar_key"
    static let pendingJoin = "pending p LEFT JOIN floating_plan f ON p.calendar_key = f.key"

    /// A pending row as ``pendingColumns`` reads it.
    struct PendingRow: Sendable {
        var id: Int64
        var app: String
        var spec: Data
        var addedAt: Double
        var nextFire: Double?
        var calendarKey: String?

        /// The request, or `nil` when its spec does not decode: an unreadable row (a newer version's, or damaged)
        /// is left out of what a read returns rather than failing it, as in the SQLite store.
        var request: PendingRequest? {
            guard let spec = try? JSON.decode(RequestSpec.self, from: spec) else { return nil }
            return PendingRequest(
                appID: app, spec: spec, addedAt: Date(timeIntervalSince1970: addedAt),
                nextFireDate: nextFire.map(Date.init(timeIntervalSince1970:)), revision: id)
        }
    }

    static func pendingRows(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [PendingRow]
    {
        var rows: [PendingRow] = []
        for try await (id, app, spec, addedAt, nextFire, calendarKey) in try await connection.query(
            query, logger: logger
        )
        .decode((Int64, String, Data, Double, Double?, String?).self) {
            rows.append(
                PendingRow(id: id, app: app, spec: spec, addedAt: addedAt, nextFire: nextFire, calendarKey: calendarKey)
            )
        }
        return rows
    }

    /// The plan a floating calendar trigger follows: its app, components and matching policy (the SQLite store's
    /// key, so the same requests share a plan on both).
    static func calendarKey(_ request: PendingRequest) throws -> String? {
        guard request.isFloating, case .calendar(let components, _, let matching)? = request.spec.trigger else {
            return nil
        }
        return request.appID + "\u{1F}" + matching.rawValue + "\u{1F}"
            + String(decoding: try JSON.encode(components), as: UTF8.self)
    }

    /// Adds one request: replaces the app's request with its identifier (a new row, so a new revision), and creates
    /// or moves the plan it follows. The caller holds the app's lock.
    static func insert(_ request: PendingRequest, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> Int64
    {
        let encoder = JSON.makeEncoder()
        let spec = try encoder.encode(request.spec)
        let key = try calendarKey(request)
        let nextFire = key == nil ? request.nextFireDate?.timeIntervalSince1970 : nil
        let regionState: String? =
            if case .location? = request.spec.trigger { RegionState.unknown.rawValue } else { nil }
        try await connection.query(
            "DELETE FROM pending WHERE app = \(request.appID) AND identifier = \(request.identifier)", logger: logger)
        var revision: Int64 = 0
        for try await id in try await connection.query(
            """
            INSERT INTO pending (app, identifier, spec, added_at, next_fire, floating, calendar_key, region_state)
            VALUES (\(request.appID), \(request.identifier), \(spec), \(request.addedAt.timeIntervalSince1970),
                \(nextFire), \(request.isFloating), \(key), \(regionState))
            RETURNING id
            """, logger: logger
        ).decode(Int64.self) {
            revision = id
        }
        if let key, case .calendar? = request.spec.trigger {
            // Created, or moved to the sooner of its instant and the new request's (an undated request, as SQLite's
            // MIN with a NULL, leaves the plan undated).
            let trigger = try encoder.encode(request.spec.trigger)
            try await connection.query(
                """
                INSERT INTO floating_plan (key, app, trigger, next_fire)
                VALUES (\(key), \(request.appID), \(trigger), \(request.nextFireDate?.timeIntervalSince1970))
                ON CONFLICT (key) DO UPDATE SET next_fire = CASE WHEN excluded.next_fire IS NULL THEN NULL
                    ELSE LEAST(COALESCE(floating_plan.next_fire, excluded.next_fire), excluded.next_fire) END
                """, logger: logger)
        }
        return revision
    }

    /// Deletes the plans of these apps that no request follows any more. The caller holds the apps' locks.
    static func pruneFloatingPlans(apps: [String], _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query(
            """
            DELETE FROM floating_plan f WHERE f.app = ANY(\(apps))
            AND NOT EXISTS (SELECT 1 FROM pending p WHERE p.calendar_key = f.key)
            """, logger: logger)
    }

    // MARK: - Policy
    //
    // Kept in `metadata` as `policy.pendingCap` ("off" or a number) and `policy.authorization` (a raw value), as in
    // the SQLite store.

    public func policy() async throws -> StorePolicy {
        try await read { connection, logger in try await Self.policy(connection, logger) }
    }

    static func policy(_ connection: PostgresConnection, _ logger: Logger) async throws -> StorePolicy {
        var values: [String: String] = [:]
        for try await (key, value) in try await connection.query(
            "SELECT key, value FROM metadata WHERE key LIKE 'policy.%'", logger: logger
        ).decode((String, String).self) {
            values[key] = value
        }
        return StorePolicy(
            pendingCap: values["policy.pendingCap"].flatMap(StorePolicy.PendingCap.init),
            authorizationPolicy: values["policy.authorization"].flatMap(AuthorizationPolicy.init(rawValue:)))
    }

    public func setPolicy(_ policy: StorePolicy) async throws {
        try await transaction { connection, logger in
            for (key, value) in [
                ("policy.pendingCap", policy.pendingCap?.description),
                ("policy.authorization", policy.authorizationPolicy?.rawValue),
            ] {
                if let value {
                    try await Self.setMetadata(key, value, connection, logger)
                } else {
                    try await connection.query("DELETE FROM metadata WHERE key = \(key)", logger: logger)
                }
            }
        }
    }

    // MARK: - Pending requests

    public func insertPending(_ request: PendingRequest, cap fallbackCap: Int?, at date: Date) async throws
        -> PendingInsertion
    {
        try await transaction { connection, logger in
            try await Self.lockApps([request.appID], connection, logger)
            // The store's own cap wins over the caller's: read here, in the transaction that applies it.
            let cap = try await Self.policy(connection, logger).pendingCap.map(\.value) ?? fallbackCap
            var stored = request
            stored.revision = try await Self.insert(request, connection, logger)
            let discarded =
                if let cap { try await Self.applyCap(cap, apps: [request.appID], at: date, connection, logger) } else {
                    [PendingRequest]()
                }
            return PendingInsertion(stored: stored, discarded: discarded)
        }
    }

    public func insertPending(batch requests: [PendingRequest], cap fallbackCap: Int?, at date: Date) async throws
        -> [PendingRequest]
    {
        guard !requests.isEmpty else { return [] }
        // Encoded before the transaction, so the locks are held for the SQL alone.
        let rows = try BatchRows(requests)
        let plans = try BatchPlans(requests)
        return try await transaction { connection, logger in
            let apps = Set(requests.map(\.appID)).sorted()
            try await Self.lockApps(apps, connection, logger)
            let cap = try await Self.policy(connection, logger).pendingCap.map(\.value) ?? fallbackCap
            try await Self.insert(batch: rows, plans: plans, connection, logger)
            guard let cap else { return [] }
            return try await Self.applyCap(cap, apps: apps, at: date, connection, logger)
        }
    }

    /// Stores the batch as ``insertPending(batch:cap:at:)`` does, leaving out the requests of apps denied
    /// notifications (read in the same transaction, under the apps' locks), and claims the stored dated rows for this
    /// store instance (``owner``) until `leaseUntil` with one `UPDATE` in that transaction.
    public func insertPendingOfAllowedApps(
        batch requests: [PendingRequest], cap fallbackCap: Int?, at date: Date, claimedUntil leaseUntil: Date
    ) async throws -> PendingBatchInsertion {
        guard !requests.isEmpty else { return PendingBatchInsertion(discarded: [], deniedAppIDs: []) }
        // Encoded before the transaction, so the locks are held for the SQL alone (again inside for a denied app's).
        let encoded = (rows: try BatchRows(requests), plans: try BatchPlans(requests))
        let owner = owner
        return try await transaction { connection, logger in
            let apps = Set(requests.map(\.appID)).sorted()
            try await Self.lockApps(apps, connection, logger)
            var denied = Set<String>()
            for try await id in try await connection.query(
                """
                SELECT id FROM app WHERE id = ANY(\(apps)) AND authorization_status = \(AuthorizationStatus.denied.rawValue)
                """, logger: logger
            ).decode(String.self) {
                denied.insert(id)
            }
            let allowed = denied.isEmpty ? requests : requests.filter { !denied.contains($0.appID) }
            guard !allowed.isEmpty else { return PendingBatchInsertion(discarded: [], deniedAppIDs: denied) }
            let (rows, plans) = denied.isEmpty ? encoded : (try BatchRows(allowed), try BatchPlans(allowed))
            let cap = try await Self.policy(connection, logger).pendingCap.map(\.value) ?? fallbackCap
            try await Self.insert(batch: rows, plans: plans, connection, logger)
            var discarded: [PendingRequest] = []
            if let cap {
                discarded = try await Self.applyCap(
                    cap, apps: apps.filter { !denied.contains($0) }, at: date, connection, logger)
            }
            // The rows just stored, looked up one by one through the index as `insert` does; a row the cap deleted is
            // gone, an undated one (a location trigger) and a floating one (its date is its plan's) stay unclaimed.
            var claimedRows: [String: (id: Int64, addedAt: Double, nextFire: Double)] = [:]
            for try await (id, app, identifier, addedAt, nextFire) in try await connection.query(
                """
                UPDATE pending SET claim_until = \(leaseUntil.timeIntervalSince1970), claim_owner = \(owner)
                WHERE id = ANY(ARRAY(
                    SELECT (SELECT p.id FROM pending p WHERE p.app = t.app AND p.identifier = t.identifier)
                    FROM unnest(\(rows.apps)::text[], \(rows.identifiers)::text[]) AS t(app, identifier)))
                AND next_fire IS NOT NULL
                RETURNING id, app, identifier, added_at, next_fire
                """, logger: logger
            ).decode((Int64, String, String, Double, Double).self) {
                claimedRows[app + "\u{0}" + identifier] = (id, addedAt, nextFire)
            }
            var last: [String: Int] = [:]
            for (index, request) in allowed.enumerated() { last[request.appID + "\u{0}" + request.identifier] = index }
            let claimed = allowed.enumerated().compactMap { index, request -> PendingRequest? in
                let key = request.appID + "\u{0}" + request.identifier
                guard last[key] == index, let row = claimedRows[key] else { return nil }
                return PendingRequest(
                    appID: request.appID, spec: request.spec, addedAt: Date(timeIntervalSince1970: row.addedAt),
                    nextFireDate: Date(timeIntervalSince1970: row.nextFire), revision: row.id)
            }
            return PendingBatchInsertion(discarded: discarded, deniedAppIDs: denied, claimed: claimed)
        }
    }

    /// A batch's rows as column arrays, for `unnest`: the last request of each app and identifier, in batch order
    /// (an earlier one is replaced by it, as one by one), with `NaN` and `""` standing for `NULL` (PostgresNIO's
    /// arrays have no `NULL` elements).
    struct BatchRows: Sendable {
        var apps: [String] = []
        var identifiers: [String] = []
        var specs: [ByteBuffer] = []
        var addedAt: [Double] = []
        var nextFire: [Double] = []
        var floating: [Bool] = []
        var calendarKeys: [String] = []
        var regionStates: [String] = []

        init(_ requests: [PendingRequest]) throws {
            var last: [String: Int] = [:]
            for (index, request) in requests.enumerated() { last[request.appID + "\u{0}" + request.identifier] = index }
            let encoder = JSON.makeEncoder()
            for (index, request) in requests.enumerated()
            where last[request.appID + "\u{0}" + request.identifier] == index {
                let key = try calendarKey(request)
                apps.append(request.appID)
                identifiers.append(request.identifier)
                specs.append(ByteBuffer(bytes: try encoder.encode(request.spec)))
                addedAt.append(request.addedAt.timeIntervalSince1970)
                nextFire.append(key == nil ? request.nextFireDate?.timeIntervalSince1970 ?? .nan : .nan)
                floating.append(request.isFloating)
                calendarKeys.append(key ?? "")
                if case .location? = request.spec.trigger {
                    regionStates.append(RegionState.unknown.rawValue)
                } else {
                    regionStates.append("")
                }
            }
        }
    }

    /// The plans a batch's floating calendar requests create or move, as column arrays: for each key, the instant
    /// the requests one by one would leave it at. `replace` says the instant does not depend on the plan's current one
    /// (an undated request of the batch left it undated, and only the requests after it count).
    struct BatchPlans: Sendable {
        var keys: [String] = []
        var apps: [String] = []
        var triggers: [ByteBuffer] = []
        var nextFire: [Double] = []
        var replace: [Bool] = []

        init(_ requests: [PendingRequest]) throws {
            var order: [String] = []
            var plans: [String: (app: String, trigger: PendingRequest, fire: Double?, replace: Bool)] = [:]
            for request in requests {
                guard let key = try calendarKey(request), case .calendar? = request.spec.trigger else { continue }
                let fire = request.nextFireDate?.timeIntervalSince1970
                if var plan = plans[key] {
                    // The upsert's rule, one request after another: an undated request leaves the plan undated,
                    // a dated one moves it to the sooner of the two (an undated plan takes the request's).
                    if let fire {
                        plan.fire = min(plan.fire ?? fire, fire)
                    } else {
                        plan = (plan.app, plan.trigger, nil, true)
                    }
                    plans[key] = plan
                } else {
                    order.append(key)
                    plans[key] = (request.appID, request, fire, fire == nil)
                }
            }
            let encoder = JSON.makeEncoder()
            for key in order {
                let plan = plans[key]!
                keys.append(key)
                apps.append(plan.app)
                triggers.append(ByteBuffer(bytes: try encoder.encode(plan.trigger.spec.trigger)))
                nextFire.append(plan.fire ?? .nan)
                replace.append(plan.replace)
            }
        }
    }

    /// Adds a batch's rows and plans in a few statements. The caller holds the apps' locks (or the plan lock).
    static func insert(batch rows: BatchRows, plans: BatchPlans, _ connection: PostgresConnection, _ logger: Logger)
        async throws
    {
        // The rows to replace are looked up one by one through an index (a subquery per pair), then deleted by
        // identifier: planned the same whatever the table's statistics say. The plain `(app, identifier) IN (SELECT *
        // FROM unnest(...))` was planned as a scan of the whole table per pair when an autovacuum had counted the
        // table while a large insert was not committed yet (no statistics, zero rows: 100 s for 300 requests over
        // 1,000,000 pending rows, docs/benchmarks.md).
        try await connection.query(
            """
            DELETE FROM pending WHERE id = ANY(ARRAY(
                SELECT (SELECT p.id FROM pending p WHERE p.app = t.app AND p.identifier = t.identifier)
                FROM unnest(\(rows.apps)::text[], \(rows.identifiers)::text[]) AS t(app, identifier)))
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO pending (app, identifier, spec, added_at, next_fire, floating, calendar_key, region_state)
            SELECT app, identifier, spec, added_at, NULLIF(next_fire, 'NaN'), floating, NULLIF(calendar_key, ''),
                NULLIF(region_state, '')
            FROM unnest(\(rows.apps)::text[], \(rows.identifiers)::text[], \(rows.specs)::bytea[],
                \(rows.addedAt)::float8[], \(rows.nextFire)::float8[], \(rows.floating)::bool[],
                \(rows.calendarKeys)::text[], \(rows.regionStates)::text[])
                WITH ORDINALITY AS t(app, identifier, spec, added_at, next_fire, floating, calendar_key, region_state, n)
            ORDER BY n
            """, logger: logger)
        guard !plans.keys.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO floating_plan (key, app, trigger, next_fire)
            SELECT key, app, trigger, NULLIF(next_fire, 'NaN')
            FROM unnest(\(plans.keys)::text[], \(plans.apps)::text[], \(plans.triggers)::bytea[],
                \(plans.nextFire)::float8[], \(plans.replace)::bool[]) AS t(key, app, trigger, next_fire, replace)
            ON CONFLICT (key) DO UPDATE SET next_fire = CASE
                WHEN excluded.next_fire IS NULL THEN NULL
                WHEN floating_plan.key = ANY(\(plans.keys.enumerated().filter { plans.replace[$0.offset] }.map(\.element)))
                    THEN excluded.next_fire
                ELSE LEAST(COALESCE(floating_plan.next_fire, excluded.next_fire), excluded.next_fire) END
            """, logger: logger)
    }

    /// Keeps each app's `cap` soonest-firing dated requests, deleting the others with a `discarded` history entry, in
    /// a few statements whatever the number of apps. The caller holds the apps' locks (or the plan lock).
    /// - Returns: The deleted requests, by app, soonest first.
    static func applyCap(
        _ cap: Int, apps: [String], at date: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [PendingRequest] {
        let excess = try await pendingRows(
            """
            SELECT id, app, spec, added_at, fire, calendar_key FROM (
                SELECT p.id, p.app, p.spec, p.added_at, COALESCE(p.next_fire, f.next_fire) AS fire, p.calendar_key,
                    row_number() OVER (PARTITION BY p.app ORDER BY COALESCE(p.next_fire, f.next_fire), p.id) AS rank
                FROM \(unescaped: pendingJoin)
                WHERE p.app = ANY(\(apps)) AND COALESCE(p.next_fire, f.next_fire) IS NOT NULL) AS ranked
            WHERE rank > \(max(cap, 0)) ORDER BY app, rank
            """, connection, logger)
        guard !excess.isEmpty else { return [] }
        try await connection.query("DELETE FROM pending WHERE id = ANY(\(excess.map(\.id)))", logger: logger)
        let discarded = excess.compactMap(\.request)  // unreadable: dropped, no history
        try await appendHistory(
            discarded.map { request in
                HistoryEntry(
                    appID: request.appID, requestIdentifier: request.identifier, title: request.spec.content.title,
                    dueDate: request.nextFireDate, actedAt: date, presenter: "none", presentation: [],
                    outcome: .discarded, detail: "more than \(cap) pending requests; the soonest \(cap) are kept")
            }, connection, logger)
        try await pruneFloatingPlans(apps: Array(Set(excess.map(\.app))), connection, logger)
        return discarded
    }

    public func pendingRequests(appID: String) async throws -> [PendingRequest] {
        try await read { connection, logger in
            try await Self.pendingRows(
                "SELECT \(unescaped: Self.pendingColumns) FROM \(unescaped: Self.pendingJoin) WHERE p.app = \(appID) ORDER BY p.id",
                connection, logger
            ).compactMap(\.request)
        }
    }

    public func removePending(appID: String, identifiers: [String]?) async throws -> [PendingRequest] {
        try await transaction { connection, logger in
            try await Self.lockApps([appID], connection, logger)
            let rows: [PendingRow]
            if let identifiers {
                rows = try await Self.pendingRows(
                    """
                    DELETE FROM pending p WHERE p.app = \(appID) AND p.identifier = ANY(\(identifiers))
                    RETURNING p.id, p.app, p.spec, p.added_at, p.next_fire, p.calendar_key
                    """, connection, logger)
            } else {
                rows = try await Self.pendingRows(
                    """
                    DELETE FROM pending p WHERE p.app = \(appID)
                    RETURNING p.id, p.app, p.spec, p.added_at, p.next_fire, p.calendar_key
                    """, connection, logger)
            }
            if rows.contains(where: { $0.calendarKey != nil }) {
                try await Self.pruneFloatingPlans(apps: [appID], connection, logger)
            }
            return rows.sorted { $0.id < $1.id }.compactMap(\.request)
        }
    }

    public func nextWakeDate(appID: String?) async throws -> Date? {
        try await read { connection, logger in
            let scope = appID == nil ? "" : " AND app = $1"
            let planScope = appID == nil ? "" : " AND f.app = $1"
            var binds = PostgresBindings()
            if let appID { binds.append(appID) }
            let sql = """
                SELECT LEAST(
                    (SELECT MIN(next_fire) FROM pending WHERE claim_until IS NULL\(scope)),
                    (SELECT MIN(claim_until) FROM pending WHERE claim_until IS NOT NULL\(scope)),
                    (SELECT MIN(f.next_fire) FROM floating_plan f WHERE true\(planScope) AND EXISTS (
                        SELECT 1 FROM pending p WHERE p.calendar_key = f.key AND p.claim_until IS NULL
                        AND (p.fired_for IS NULL OR p.fired_for < f.next_fire))))
                """
            // A plan counts while one of its requests still has to fire for it and is not being delivered.
            var date: Double?
            for try await value in try await connection.query(
                PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger
            )
            .decode(Double?.self) {
                date = value
            }
            return date.map(Date.init(timeIntervalSince1970:))
        }
    }

    public func claimDue(at date: Date, leaseUntil: Date, limit: Int, appID: String?) async throws -> [PendingRequest] {
        try await claimDue(at: date, dueBy: date, leaseUntil: leaseUntil, limit: limit, appID: appID)
    }

    public func claimDue(at date: Date, dueBy horizon: Date, leaseUntil: Date, limit: Int, appID: String?) async throws
        -> [PendingRequest]
    {
        let owner = owner
        return try await transaction { connection, logger in
            let now = date.timeIntervalSince1970
            let dueBy = max(horizon, date).timeIntervalSince1970
            let scope = appID == nil ? "" : " AND p.app = $2"
            func query(_ sql: String, _ instant: Double, _ limit: Int) -> PostgresQuery {
                var binds = PostgresBindings()
                binds.append(instant)
                if let appID { binds.append(appID) }
                binds.append(max(0, limit))
                return PostgresQuery(unsafeSQL: sql, binds: binds)
            }
            let limitParameter = appID == nil ? "$2" : "$3"
            // Rows another worker is claiming right now are locked: skipped, not waited for. A row another worker
            // claimed and committed since this statement began is checked again and no longer qualifies.
            var rows = try await Self.pendingRows(
                query(
                    """
                    SELECT \(Self.pendingColumns) FROM \(Self.pendingJoin)
                    WHERE p.claim_until IS NULL AND p.next_fire <= $1\(scope) ORDER BY p.next_fire
                    LIMIT \(limitParameter) FOR UPDATE OF p SKIP LOCKED
                    """, dueBy, limit), connection, logger)
            rows += try await Self.pendingRows(
                query(
                    """
                    SELECT \(Self.pendingColumns) FROM floating_plan f JOIN pending p ON p.calendar_key = f.key
                    WHERE f.next_fire <= $1 AND p.claim_until IS NULL AND p.added_at < f.next_fire
                    AND (p.fired_for IS NULL OR p.fired_for < f.next_fire)\(scope) ORDER BY f.next_fire
                    LIMIT \(limitParameter) FOR UPDATE OF p SKIP LOCKED
                    """, dueBy, limit - rows.count), connection, logger)
            rows += try await Self.pendingRows(
                query(
                    """
                    SELECT \(Self.pendingColumns) FROM \(Self.pendingJoin)
                    WHERE p.claim_until IS NOT NULL AND p.claim_until <= $1\(scope) ORDER BY p.claim_until
                    LIMIT \(limitParameter) FOR UPDATE OF p SKIP LOCKED
                    """, now, limit - rows.count), connection, logger)
            guard !rows.isEmpty else { return [] }
            try await connection.query(
                """
                UPDATE pending SET claim_until = \(leaseUntil.timeIntervalSince1970), claim_owner = \(owner)
                WHERE id = ANY(\(rows.map(\.id)))
                """, logger: logger)
            return rows.compactMap(\.request)
        }
    }

    public func claimedFireDates(revisions: [Int64]) async throws -> [Int64: Date] {
        guard !revisions.isEmpty else { return [:] }
        let owner = owner
        return try await read { connection, logger in
            var dates: [Int64: Date] = [:]
            for try await (id, fire) in try await connection.query(
                """
                SELECT p.id, COALESCE(p.next_fire, f.next_fire) FROM \(unescaped: Self.pendingJoin)
                WHERE p.id = ANY(\(revisions)) AND p.claim_until IS NOT NULL AND p.claim_owner = \(owner)
                """, logger: logger
            ).decode((Int64, Double?).self) {
                if let fire { dates[id] = Date(timeIntervalSince1970: fire) }
            }
            return dates
        }
    }

    public func releaseClaims(revisions: [Int64]) async throws {
        guard !revisions.isEmpty else { return }
        let owner = owner
        try await transaction { connection, logger in
            try await connection.query(
                """
                UPDATE pending SET claim_until = NULL, claim_owner = NULL
                WHERE id = ANY(\(revisions)) AND claim_owner = \(owner)
                """, logger: logger)
        }
    }

    /// Renews, in one `UPDATE ... RETURNING`, the claims this store instance (``owner``) holds on these revisions. A
    /// claim that expired and was then taken by another worker names that worker, so it is not renewed.
    public func renewClaims(revisions: [Int64], leaseUntil: Date) async throws -> [Int64] {
        guard !revisions.isEmpty else { return [] }
        let owner = owner
        return try await transaction { connection, logger in
            var renewed: [Int64] = []
            for try await id in try await connection.query(
                """
                UPDATE pending SET claim_until = GREATEST(claim_until, \(leaseUntil.timeIntervalSince1970))
                WHERE id = ANY(\(revisions)) AND claim_until IS NOT NULL AND claim_owner = \(owner) RETURNING id
                """, logger: logger
            ).decode(Int64.self) {
                renewed.append(id)
            }
            return renewed
        }
    }

    /// Releases nothing and answers 0: whether a worker on another machine still runs cannot be told from here, so
    /// its claims come back to the other workers when their lease ends (``claimDue(at:dueBy:leaseUntil:limit:appID:)``
    /// takes expired claims).
    public func releaseAbandonedClaims() async throws -> Int { 0 }

    @discardableResult
    public func completeFire(
        _ request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?
    ) async throws -> Int64 {
        try await transaction { connection, logger in
            try await Self.lockApps([request.appID], connection, logger)
            if let recorded = try await self.firedElsewhere(request, history: history, connection, logger) {
                return recorded
            }
            switch (nextFireDate, request.isFloating) {
            case (nil, _) where Self.isRepeatingLocation(request):
                // Waits, undated, for its next crossing, unless a newer crossing made it due again meanwhile.
                let fired = request.nextFireDate?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude
                try await connection.query(
                    """
                    UPDATE pending SET claim_until = NULL, claim_owner = NULL,
                    next_fire = CASE WHEN next_fire > \(fired) THEN next_fire ELSE NULL END WHERE id = \(request.revision)
                    """, logger: logger)
            case (nil, _):
                try await connection.query("DELETE FROM pending WHERE id = \(request.revision)", logger: logger)
                if request.isFloating { try await Self.pruneFloatingPlans(apps: [request.appID], connection, logger) }
            case (_?, true):
                // The plan moves on once every request following it has fired (see exhaustedFloatingPlans).
                try await connection.query(
                    """
                    UPDATE pending SET claim_until = NULL, claim_owner = NULL,
                    fired_for = \(request.nextFireDate?.timeIntervalSince1970) WHERE id = \(request.revision)
                    """, logger: logger)
            case (let next?, false):
                try await connection.query(
                    """
                    UPDATE pending SET next_fire = \(next.timeIntervalSince1970), claim_until = NULL, claim_owner = NULL
                    WHERE id = \(request.revision)
                    """, logger: logger)
            }
            let historyID = try await Self.appendHistory(history, connection, logger)
            if var delivered {
                delivered.historyID = historyID
                let payload = try JSON.encode(delivered)
                try await connection.query(
                    """
                    INSERT INTO delivered (app, identifier, payload, date, history_id)
                    VALUES (\(delivered.appID), \(delivered.identifier), \(payload),
                        \(delivered.date.timeIntervalSince1970), \(historyID))
                    ON CONFLICT (app, identifier) DO UPDATE SET payload = excluded.payload, date = excluded.date,
                        history_id = excluded.history_id
                    """, logger: logger)
            }
            if let badge {
                try await connection.query(
                    """
                    INSERT INTO app (id, authorization_status, granted_options, badge) VALUES (\(request.appID), 0, 0, \(badge))
                    ON CONFLICT (id) DO UPDATE SET badge = excluded.badge
                    """, logger: logger)
            }
            return historyID
        }
    }

    /// Whether another worker has this fire: it claimed the request after this worker's claim's lease ended (it records
    /// the fire itself), or it already recorded it. Then this worker records nothing, so a fire is recorded once even
    /// when a slow worker outlived its lease and the fire was sent twice (at least once delivery, one record).
    ///
    /// - Returns: `nil` when this worker should record the fire; otherwise the other worker's history entry, or 0
    ///   while it has not recorded it yet.
    private func firedElsewhere(
        _ request: PendingRequest, history: HistoryEntry, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int64? {
        var row: (owner: String?, nextFire: Double?)?
        for try await (claimOwner, nextFire) in try await connection.query(
            "SELECT claim_owner, next_fire FROM pending WHERE id = \(request.revision)", logger: logger
        ).decode((String?, Double?).self) {
            row = (claimOwner, nextFire)
        }
        let due = history.dueDate?.timeIntervalSince1970
        switch row {
        case let row? where row.owner != nil && row.owner != owner:
            return 0
        case let row? where row.owner != nil || row.nextFire == due || due == nil:
            return nil
        default:
            // Gone, or unclaimed and moved past this fire: another worker completed it (its history has this fire),
            // or the app removed or replaced the request meanwhile.
            guard let due else { return nil }
            for try await id in try await connection.query(
                """
                SELECT id FROM history WHERE app = \(request.appID) AND request_identifier = \(history.requestIdentifier)
                    AND due = \(due) AND outcome = \(history.outcome.rawValue) LIMIT 1
                """, logger: logger
            ).decode(Int64.self) {
                return id
            }
            return nil
        }
    }

    /// Whether a request has a repeating location trigger, which stays pending after each fire.
    static func isRepeatingLocation(_ request: PendingRequest) -> Bool {
        if case .location(_, repeats: true)? = request.spec.trigger { return true }
        return false
    }

    // MARK: - Floating plans

    public func floatingPlans(dueAfter date: Date) async throws -> [FloatingPlan] {
        try await read { connection, logger in
            try await Self.plans(
                "SELECT key, app, trigger, next_fire FROM floating_plan WHERE next_fire > \(date.timeIntervalSince1970)",
                connection, logger)
        }
    }

    public func exhaustedFloatingPlans(at date: Date, appID: String?) async throws -> [FloatingPlan] {
        try await read { connection, logger in
            var binds = PostgresBindings()
            binds.append(date.timeIntervalSince1970)
            if let appID { binds.append(appID) }
            return try await Self.plans(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT key, app, trigger, next_fire FROM floating_plan f WHERE f.next_fire <= $1\(appID == nil ? "" : " AND f.app = $2")
                        AND NOT EXISTS (
                            SELECT 1 FROM pending p WHERE p.calendar_key = f.key AND p.added_at < f.next_fire
                            AND (p.fired_for IS NULL OR p.fired_for < f.next_fire))
                        """, binds: binds), connection, logger)
        }
    }

    private static func plans(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [FloatingPlan]
    {
        var plans: [FloatingPlan] = []
        for try await (key, app, trigger, nextFire) in try await connection.query(query, logger: logger)
            .decode((String, String, Data, Double?).self)
        {
            plans.append(
                FloatingPlan(
                    key: key, appID: app, trigger: try JSON.decode(TriggerSpec.self, from: trigger),
                    nextFireDate: nextFire.map(Date.init(timeIntervalSince1970:))))
        }
        return plans
    }

    public func updateFloatingPlans(_ updates: [FloatingPlanUpdate]) async throws {
        guard !updates.isEmpty else { return }
        try await transaction { connection, logger in
            var apps: [String] = []
            for try await app in try await connection.query(
                "SELECT DISTINCT app FROM floating_plan WHERE key = ANY(\(updates.map(\.key)))", logger: logger
            ).decode(String.self) {
                apps.append(app)
            }
            try await Self.lockApps(apps, connection, logger)
            for update in updates {
                if let next = update.nextFireDate {
                    try await connection.query(
                        "UPDATE floating_plan SET next_fire = \(next.timeIntervalSince1970) WHERE key = \(update.key)",
                        logger: logger)
                } else {
                    // Never matches again: what follows the plan has fired for good.
                    try await connection.query("DELETE FROM pending WHERE calendar_key = \(update.key)", logger: logger)
                    try await connection.query("DELETE FROM floating_plan WHERE key = \(update.key)", logger: logger)
                }
            }
            try await Self.pruneFloatingPlans(apps: apps, connection, logger)
        }
    }

    public func replanFloatingPlans(
        dueAfter date: Date, nextFireDate: @escaping @Sendable (TriggerSpec) throws -> Date?
    ) async throws -> Int {
        try await transaction { connection, logger in
            // Every plan may move: no insert, removal or completion of a floating request runs meanwhile.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.planLock))", logger: logger)
            let after = date.timeIntervalSince1970
            // Plans of different apps with the same components share a trigger: one date, one statement for all.
            var triggers: [Data] = []
            for try await trigger in try await connection.query(
                "SELECT DISTINCT trigger FROM floating_plan WHERE next_fire > \(after)", logger: logger
            ).decode(Data.self) {
                triggers.append(trigger)
            }
            var moved = 0
            for encoded in triggers {
                if let next = try nextFireDate(JSON.decode(TriggerSpec.self, from: encoded)) {
                    moved += try await Self.count(
                        """
                        WITH moved AS (UPDATE floating_plan SET next_fire = \(next.timeIntervalSince1970)
                            WHERE trigger = \(encoded) AND next_fire > \(after) RETURNING 1)
                        SELECT COUNT(*) FROM moved
                        """, connection, logger)
                } else {
                    // Never matches again: what follows these plans has fired for good.
                    try await connection.query(
                        """
                        DELETE FROM pending WHERE calendar_key IN (
                            SELECT key FROM floating_plan WHERE trigger = \(encoded) AND next_fire > \(after))
                        """, logger: logger)
                    moved += try await Self.count(
                        """
                        WITH ended AS (DELETE FROM floating_plan WHERE trigger = \(encoded) AND next_fire > \(after)
                            RETURNING 1)
                        SELECT COUNT(*) FROM ended
                        """, connection, logger)
                }
            }
            return moved
        }
    }

    /// The single integer a query answers (a `COUNT(*)`).
    static func count(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        var count = 0
        for try await value in try await connection.query(query, logger: logger).decode(Int.self) { count = value }
        return count
    }

    // MARK: - Location triggers
    //
    // A location request's row has `region_state` set ('unknown' until a fix decides) and no `next_fire` while it
    // waits for a crossing; a crossing that notifies sets `next_fire`, and the claim/complete path delivers it.

    public func locationRequests(appID: String?) async throws -> [LocationRequestState] {
        try await read { connection, logger in
            var binds = PostgresBindings()
            if let appID { binds.append(appID) }
            var states: [LocationRequestState] = []
            for try await (id, app, spec, addedAt, nextFire, regionState) in try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT id, app, spec, added_at, next_fire, region_state FROM pending
                        WHERE region_state IS NOT NULL\(appID == nil ? "" : " AND app = $1") ORDER BY id
                        """, binds: binds), logger: logger
            ).decode((Int64, String, Data, Double, Double?, String).self) {
                let row = PendingRow(
                    id: id, app: app, spec: spec, addedAt: addedAt, nextFire: nextFire, calendarKey: nil)
                // An unreadable row is left out, not allowed to hide the others.
                guard let request = row.request else { continue }
                states.append(
                    LocationRequestState(request: request, state: RegionState(rawValue: regionState) ?? .unknown))
            }
            return states
        }
    }

    public func updateRegionStates(_ updates: [RegionStateUpdate]) async throws {
        guard !updates.isEmpty else { return }
        try await transaction { connection, logger in
            for update in updates {
                try await connection.query(
                    """
                    UPDATE pending SET region_state = \(update.state.rawValue),
                        next_fire = COALESCE(\(update.dueAt?.timeIntervalSince1970)::double precision, next_fire)
                    WHERE id = \(update.revision) AND region_state IS NOT NULL
                    """, logger: logger)
            }
        }
    }

    public func pendingCount() async throws -> Int {
        try await read { connection, logger in
            try await Self.count("SELECT COUNT(*) FROM pending", connection, logger)
        }
    }

    public func pendingCounts() async throws -> [String: Int] {
        try await read { connection, logger in
            var counts: [String: Int] = [:]
            for try await (app, count) in try await connection.query(
                "SELECT app, COUNT(*) FROM pending GROUP BY app", logger: logger
            ).decode((String, Int).self) {
                counts[app] = count
            }
            return counts
        }
    }

    // MARK: - Delivered notifications

    public func deliveredNotifications(appID: String) async throws -> [DeliveredNotification] {
        try await read { connection, logger in
            // Equal dates in the order their fires were recorded, as the SQLite store lists them (a replacement
            // updates its row in place in both).
            try await Self.delivered(
                "SELECT payload, history_id FROM delivered WHERE app = \(appID) ORDER BY date, history_id", connection,
                logger)
        }
    }

    /// The notifications of the rows that decode (an unreadable row hides nothing).
    private static func delivered(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> [DeliveredNotification]
    {
        var notifications: [DeliveredNotification] = []
        for try await (payload, historyID) in try await connection.query(query, logger: logger)
            .decode((Data, Int64?).self)
        {
            guard var notification = try? JSON.decode(DeliveredNotification.self, from: payload) else { continue }
            notification.historyID = historyID
            notifications.append(notification)
        }
        return notifications
    }

    public func removeDelivered(appID: String, identifiers: [String]?, outcome: HistoryEntry.Outcome) async throws
        -> [DeliveredNotification]
    {
        try await transaction { connection, logger in
            let removed: [DeliveredNotification]
            if let identifiers {
                removed = try await Self.delivered(
                    "DELETE FROM delivered WHERE app = \(appID) AND identifier = ANY(\(identifiers)) RETURNING payload, history_id",
                    connection, logger)
            } else {
                removed = try await Self.delivered(
                    "DELETE FROM delivered WHERE app = \(appID) RETURNING payload, history_id", connection, logger)
            }
            let historyIDs = removed.compactMap(\.historyID)
            if !historyIDs.isEmpty {
                try await connection.query(
                    """
                    UPDATE history SET outcome = \(outcome.rawValue)
                    WHERE id = ANY(\(historyIDs)) AND outcome = \(HistoryEntry.Outcome.delivered.rawValue)
                    """, logger: logger)
            }
            return removed.sorted { $0.date < $1.date }
        }
    }

    // MARK: - Responses

    public func recordResponse(_ response: ResponseSpec, outcome: HistoryEntry.Outcome, enqueue: Bool) async throws {
        let payload = try JSON.encode(response)
        try await transaction { connection, logger in
            let notification = response.notification
            try await connection.query(
                "DELETE FROM delivered WHERE app = \(notification.appID) AND identifier = \(notification.identifier)",
                logger: logger)
            let detail = response.userText.map { "\(response.actionIdentifier): \($0)" } ?? response.actionIdentifier
            try await connection.query(
                "UPDATE history SET outcome = \(outcome.rawValue), detail = \(detail) WHERE id = \(notification.historyID)",
                logger: logger)
            if enqueue {
                try await connection.query(
                    "INSERT INTO response (app, payload) VALUES (\(notification.appID), \(payload))", logger: logger)
            }
        }
    }

    public func queuedResponses(appID: String) async throws -> [QueuedResponse] {
        try await read { connection, logger in
            var responses: [QueuedResponse] = []
            for try await (id, payload) in try await connection.query(
                "SELECT id, payload FROM response WHERE app = \(appID) ORDER BY id", logger: logger
            ).decode((Int64, Data).self) {
                responses.append(QueuedResponse(id: id, response: try JSON.decode(ResponseSpec.self, from: payload)))
            }
            return responses
        }
    }

    public func removeQueuedResponse(id: Int64) async throws {
        try await transaction { connection, logger in
            try await connection.query("DELETE FROM response WHERE id = \(id)", logger: logger)
        }
    }

    // MARK: - Categories and apps

    public func setCategories(_ categories: [CategorySpec], appID: String) async throws {
        let payload = try JSON.encode(categories)
        try await transaction { connection, logger in
            try await connection.query(
                """
                INSERT INTO category (app, payload) VALUES (\(appID), \(payload))
                ON CONFLICT (app) DO UPDATE SET payload = excluded.payload
                """, logger: logger)
        }
    }

    public func categories(appID: String) async throws -> [CategorySpec] {
        try await read { connection, logger in
            for try await payload in try await connection.query(
                "SELECT payload FROM category WHERE app = \(appID)", logger: logger
            ).decode(Data.self) {
                return try JSON.decode([CategorySpec].self, from: payload)
            }
            return []
        }
    }

    public func appState(appID: String) async throws -> AppState? {
        try await read { connection, logger in
            try await Self.appStates(
                "SELECT id, authorization_status, granted_options, badge FROM app WHERE id = \(appID)", connection,
                logger
            ).first
        }
    }

    /// The states of these apps that have one, in one query (a claimed batch of a server spans up to a batch of
    /// devices).
    public func appStates(appIDs: [String]) async throws -> [String: AppState] {
        guard !appIDs.isEmpty else { return [:] }
        let ids = Array(Set(appIDs))
        let states = try await read { connection, logger in
            try await Self.appStates(
                "SELECT id, authorization_status, granted_options, badge FROM app WHERE id = ANY(\(ids))", connection,
                logger)
        }
        return Dictionary(states.map { ($0.appID, $0) }) { first, _ in first }
    }

    /// The categories of these apps that set any, in one query.
    public func categories(appIDs: [String]) async throws -> [String: [CategorySpec]] {
        guard !appIDs.isEmpty else { return [:] }
        let ids = Array(Set(appIDs))
        return try await read { connection, logger in
            var categories: [String: [CategorySpec]] = [:]
            for try await (app, payload) in try await connection.query(
                "SELECT app, payload FROM category WHERE app = ANY(\(ids))", logger: logger
            ).decode((String, Data).self) {
                let decoded = try JSON.decode([CategorySpec].self, from: payload)
                if !decoded.isEmpty { categories[app] = decoded }
            }
            return categories
        }
    }

    /// The denied apps among these, in one query that returns only them (a batch of a server spans thousands of
    /// devices, none of them usually denied).
    public func deniedAppIDs(among appIDs: [String]) async throws -> Set<String> {
        guard !appIDs.isEmpty else { return [] }
        let ids = Array(Set(appIDs))
        return try await read { connection, logger in
            var denied = Set<String>()
            for try await id in try await connection.query(
                """
                SELECT id FROM app WHERE id = ANY(\(ids)) AND authorization_status = \(AuthorizationStatus.denied.rawValue)
                """, logger: logger
            ).decode(String.self) {
                denied.insert(id)
            }
            return denied
        }
    }

    public func saveAppState(_ state: AppState) async throws {
        try await transaction { connection, logger in
            try await connection.query(
                """
                INSERT INTO app (id, authorization_status, granted_options, badge)
                VALUES (\(state.appID), \(state.authorization.rawValue), \(Int64(state.grantedOptions.rawValue)), \(state.badge))
                ON CONFLICT (id) DO UPDATE SET authorization_status = excluded.authorization_status,
                    granted_options = excluded.granted_options, badge = excluded.badge
                """, logger: logger)
        }
    }

    public func allAppStates() async throws -> [AppState] {
        try await read { connection, logger in
            try await Self.appStates(
                "SELECT id, authorization_status, granted_options, badge FROM app ORDER BY id", connection, logger)
        }
    }

    private static func appStates(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> [AppState]
    {
        var states: [AppState] = []
        for try await (id, authorization, options, badge) in try await connection.query(query, logger: logger)
            .decode((String, Int, Int64, Int).self)
        {
            states.append(
                AppState(
                    appID: id, authorization: AuthorizationStatus(rawValue: authorization) ?? .notDetermined,
                    grantedOptions: AuthorizationSet(rawValue: UInt(truncatingIfNeeded: options)), badge: badge))
        }
        return states
    }

    // MARK: - History and metadata

    public func history(appID: String?, limit: Int) async throws -> [HistoryEntry] {
        try await read { connection, logger in
            var binds = PostgresBindings()
            if let appID { binds.append(appID) }
            binds.append(limit < 0 ? Int.max : limit)  // as SQLite: a negative limit is none
            let sql = """
                SELECT id, app, request_identifier, title, due, acted_at, presenter, presentation, outcome, detail
                FROM history\(appID == nil ? "" : " WHERE app = $1") ORDER BY id DESC LIMIT $\(binds.count)
                """
            var entries: [HistoryEntry] = []
            for try await (id, app, request, title, due, actedAt, presenter, presentation, outcome, detail)
                in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                .decode((Int64, String, String, String, Double?, Double, String, Int64, String, String?).self)
            {
                entries.append(
                    HistoryEntry(
                        id: id, appID: app, requestIdentifier: request, title: title,
                        dueDate: due.map(Date.init(timeIntervalSince1970:)),
                        actedAt: Date(timeIntervalSince1970: actedAt),
                        presenter: presenter,
                        presentation: PresentationSet(rawValue: UInt(truncatingIfNeeded: presentation)),
                        outcome: HistoryEntry.Outcome(rawValue: outcome) ?? .delivered, detail: detail))
            }
            return entries
        }
    }

    public func appendHistory(_ entry: HistoryEntry) async throws {
        try await transaction { connection, logger in _ = try await Self.appendHistory(entry, connection, logger) }
    }

    /// Appends an entry (a new identifier, whatever `entry.id` says) and returns its identifier.
    @discardableResult
    static func appendHistory(_ entry: HistoryEntry, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> Int64
    {
        var id: Int64 = 0
        for try await value in try await connection.query(
            """
            INSERT INTO history (app, request_identifier, title, due, acted_at, presenter, presentation, outcome, detail)
            VALUES (\(entry.appID), \(entry.requestIdentifier), \(entry.title), \(entry.dueDate?.timeIntervalSince1970),
                \(entry.actedAt.timeIntervalSince1970), \(entry.presenter), \(Int64(entry.presentation.rawValue)),
                \(entry.outcome.rawValue), \(entry.detail))
            RETURNING id
            """, logger: logger
        ).decode(Int64.self) {
            id = value
        }
        return id
    }

    /// Appends entries in one statement (``appendHistoryReturningIDs(_:_:_:)``, the identifiers left out).
    static func appendHistory(_ entries: [HistoryEntry], _ connection: PostgresConnection, _ logger: Logger)
        async throws
    {
        _ = try await appendHistoryReturningIDs(entries, connection, logger)
    }

    public func metadata(_ key: String) async throws -> String? {
        try await read { connection, logger in
            for try await value in try await connection.query(
                "SELECT value FROM metadata WHERE key = \(key)", logger: logger
            ).decode(String.self) {
                return value
            }
            return nil
        }
    }

    public func setMetadata(_ key: String, _ value: String) async throws {
        try await transaction { connection, logger in try await Self.setMetadata(key, value, connection, logger) }
    }

    static func setMetadata(_ key: String, _ value: String, _ connection: PostgresConnection, _ logger: Logger)
        async throws
    {
        try await connection.query(
            """
            INSERT INTO metadata (key, value) VALUES (\(key), \(value))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, logger: logger)
    }

    // MARK: - APNs log

    public func appendAPNsLog(_ entries: [APNsLogEntry], keep: Int) async throws {
        guard !entries.isEmpty else { return }
        let encoder = JSON.makeEncoder()
        let encoded = try entries.map { try encoder.encode($0) }
        try await transaction { connection, logger in
            // One writer at a time, so the ring's bound holds with several workers appending.
            try await connection.query("LOCK TABLE apns_log IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            for entry in encoded {
                try await connection.query("INSERT INTO apns_log (entry) VALUES (\(entry))", logger: logger)
            }
            try await connection.query(
                "DELETE FROM apns_log WHERE id <= (SELECT MAX(id) FROM apns_log) - \(Int64(max(keep, 0)))",
                logger: logger)
        }
    }

    public func apnsLog(afterID: Int64, limit: Int) async throws -> [APNsLogEntry] {
        try await read { connection, logger in
            var entries: [APNsLogEntry] = []
            for try await (id, data) in try await connection.query(
                "SELECT id, entry FROM apns_log WHERE id > \(afterID) ORDER BY id DESC LIMIT \(max(limit, 0))",
                logger: logger
            ).decode((Int64, Data).self) {
                var entry = try JSON.decode(APNsLogEntry.self, from: data)
                entry.id = id
                entries.append(entry)
            }
            return entries.reversed()
        }
    }
}
