import Foundation
import GRDB
import NotificationModel
import NotificationStoreSQLite

/// A small deterministic generator, so the engine fill and the raw baselines produce the very same rows.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The requests the bench schedules.
enum Workload {
    static let appID = "com.example.bench"
    /// A second app for the requests added on top of a filled store, so they can be removed in one call.
    static let marginalAppID = "com.example.bench.marginal"
    /// The app whose requests fall due during the delivery test.
    static let dueAppID = "com.example.bench.due"

    /// Far-future fire intervals: 2 hours to 30 days, whole seconds, so nothing of the bulk fires during the run
    /// and every JSON payload has the same shape.
    static func farInterval(using generator: inout SplitMix64) -> TimeInterval {
        TimeInterval(Int.random(in: 7_200...2_592_000, using: &generator))
    }

    /// A typical request: title, subtitle, a body of about a hundred characters, the default sound, a category,
    /// a thread and a small `userInfo`.
    static func spec(identifier: String, index: Int, interval: TimeInterval) -> RequestSpec {
        var content = NotificationPayload()
        content.title = "Reminder \(index)"
        content.subtitle = "Benchmark"
        content.body = "Your scheduled reminder is due: review the notes, answer the open questions and plan tomorrow."
        content.sound = SoundSpec()
        content.categoryIdentifier = "bench.reminder"
        content.threadIdentifier = "thread-\(index % 64)"
        content.userInfo = ["index": .integer(index), "kind": .string("bench")]
        return RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(interval, repeats: false))
    }

    static func identifier(_ index: Int, prefix: String = "far") -> String {
        let digits = String(index)
        return prefix + "-" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// Encodes a spec exactly as `NotificationStoreSQLite` does (its internal `JSON` enum in Records.swift:
    /// sorted keys, dates as seconds since 1970), so raw rows carry payloads of the same size.
    static func encodeSpec(_ spec: RequestSpec) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return try encoder.encode(spec)
    }
}

/// One row of the store's `pending` table, as the bench writes it directly.
struct RawPendingRow: Sendable {
    var identifier: String
    var spec: Data
    var addedAt: Double
    var nextFire: Double
}

/// Generates the far-future rows in order, in chunks, from the same seed as the engine fill.
struct RawRowGenerator {
    private var generator: SplitMix64
    private var nextIndex = 0
    private let prefix: String
    private let encoder: JSONEncoder

    /// The same `seed` and `prefix` as an engine fill give the same requests in the same order.
    init(seed: UInt64, prefix: String) {
        generator = SplitMix64(seed: seed)
        self.prefix = prefix
        encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
    }

    mutating func next(_ count: Int) throws -> [RawPendingRow] {
        var rows: [RawPendingRow] = []
        rows.reserveCapacity(count)
        let now = Date().timeIntervalSince1970
        for _ in 0..<count {
            let interval = Workload.farInterval(using: &generator)
            let identifier = Workload.identifier(nextIndex, prefix: prefix)
            let spec = Workload.spec(identifier: identifier, index: nextIndex, interval: interval)
            rows.append(
                RawPendingRow(identifier: identifier, spec: try encoder.encode(spec), addedAt: now, nextFire: now + interval))
            nextIndex += 1
        }
        return rows
    }
}

/// Direct GRDB access to a store file: the baselines and the bench's own batched fill path.
enum RawStore {
    /// The store's own connection settings (`SQLiteNotificationStore.configuration()`: `synchronous = FULL`,
    /// `wal_autocheckpoint = 4000`, `journal_size_limit` 16 MiB, SQLite's default cache, a 10 s busy timeout, GRDB's
    /// work at the default QoS), so that a baseline pays what the store pays.
    static func configuration() -> Configuration {
        var configuration = SQLiteNotificationStore.configuration()
        configuration.label = "unotify-bench.raw"
        return configuration
    }

    static let insertSQL = """
        INSERT INTO pending (app, identifier, spec, addedAt, nextFire, floating, claimUntil)
        VALUES (?, ?, ?, ?, ?, 0, NULL)
        """

    /// Creates a fresh file with the store's exact schema, by letting the store migrate it, then closes it.
    static func createFreshStoreFile(at path: String) throws {
        _ = try SQLiteNotificationStore(path: path)
    }

    /// A `DatabasePool` on a store file with ``configuration()``, its writer at `synchronous = FULL` as the store's
    /// (`SQLiteNotificationStore.openPool(path:configuration:)`; GRDB's WAL set-up would leave it at NORMAL).
    static func open(_ path: String) throws -> DatabasePool {
        try SQLiteNotificationStore.openPool(path: path, configuration: configuration())
    }

    /// Inserts `total` generated rows, one transaction per row. Returns the seconds spent in the database
    /// (row generation and JSON encoding excluded).
    static func insertPerRow(pool: DatabasePool, total: Int, appID: String, generator: inout RawRowGenerator) throws
        -> Double
    {
        var spent = 0.0
        var done = 0
        while done < total {
            let rows = try generator.next(min(20_000, total - done))
            let start = ContinuousClock.now
            for row in rows {
                try pool.write { db in
                    try db.cachedStatement(sql: insertSQL).execute(
                        arguments: [appID, row.identifier, row.spec, row.addedAt, row.nextFire])
                }
            }
            spent += (ContinuousClock.now - start).seconds
            done += rows.count
        }
        return spent
    }

    /// Inserts `total` generated rows in one transaction. Returns the seconds spent in the database (row
    /// generation and JSON encoding excluded, the commit included).
    static func insertBatched(pool: DatabasePool, total: Int, appID: String, generator: inout RawRowGenerator) throws
        -> Double
    {
        var generating = 0.0
        let start = ContinuousClock.now
        try pool.write { db in
            let statement = try db.cachedStatement(sql: insertSQL)
            var done = 0
            while done < total {
                let generationStart = ContinuousClock.now
                let rows = try generator.next(min(20_000, total - done))
                generating += (ContinuousClock.now - generationStart).seconds
                for row in rows {
                    try statement.execute(arguments: [appID, row.identifier, row.spec, row.addedAt, row.nextFire])
                }
                done += rows.count
            }
        }
        return (ContinuousClock.now - start).seconds - generating
    }

    /// Row count and mean `spec` payload size of an app's pending rows.
    static func payloadStats(_ path: String, appID: String) throws -> (rows: Int, meanBytes: Double) {
        let pool = try open(path)
        return try pool.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*), AVG(length(spec)) FROM pending WHERE app = ?", arguments: [appID])
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    static func sqliteVersion() -> String {
        guard let queue = try? DatabaseQueue(),
            let version = try? queue.read({ db in try String.fetchOne(db, sql: "SELECT sqlite_version()") })
        else { return "?" }
        return version
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
