import BenchSupport
import Foundation
import GRDB
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// Figure 4: many requests at once into a store that already holds `options.bulkBase` pending, through the engine's
/// batch add and through `unotify import`, beside a raw single-transaction insert of the same rows in the same run,
/// and SQLite's own insert of such rows through its C API (``SQLiteFloor``): the floor under all of them.
enum BulkBench {
    /// Issue 11's target 3: requests per second into a store that already holds 1M pending.
    static let targetRate = 200_000

    struct Result {
        var base: Int
        var rows: Int
        /// Filling the base through `insertPending(batch:)`, 50,000 a transaction.
        var fillSeconds: Double
        /// The baseline: the rows, encoded beforehand, inserted with one prepared statement in one transaction.
        var rawSeconds: Double
        /// Encoding the rows' specs to JSON (what the baseline leaves out).
        var encodeSeconds: Double
        /// `NotificationScheduler.add(contentsOf:)`, in batches of `batch`.
        var engineSeconds: Double
        /// `unotify import FILE --batch-size batch`, as a process, start to exit; `nil` when no `unotify` is beside
        /// the bench.
        var importSeconds: Double?
        var batch: Int
        /// After the figures above, a like-for-like pair for each: the raw INSERT of `rows` more rows in
        /// transactions of `batch` (what the batched engine add pays for its transactions alone), another raw single
        /// transaction, and `add(contentsOf:)` of `rows` more requests in one call (one transaction, as the raw one).
        var rawBatchedSeconds: Double
        var rawAgainSeconds: Double
        var engineOneCallSeconds: Double
        /// After all of the above, SQLite's own insert (``SQLiteFloor/insert(_:appID:path:)``) of `rows` more
        /// pre-encoded rows in one transaction, into a second store filled to `base` as the first was: what the raw
        /// baseline costs without GRDB, at the same base. The floor of target 3 on this machine.
        var floorSeconds: Double
        /// The same insert of `rows` other rows sorted by fire date first (``SQLiteFloor/sortedByFireDate(_:)``),
        /// into a third store filled alike: what an importer that sorted its input could reach.
        var sortedFloorSeconds: Double
        /// Sorting those rows (left out of `sortedFloorSeconds`).
        var sortSeconds: Double
        /// The fills of the second and third stores, as `fillSeconds`.
        var floorFillSeconds: [Double]
        /// The floor connection's pragmas, read back before its insert.
        var floorSettings: SQLiteFloor.Settings
        /// The page-size diagnostic: rows inserted in group commits of ``groupSize`` after the sorted insert, in the
        /// third store (4 KiB pages, the store's) and in a fourth filled alike with 16 KiB pages.
        var groupedRows: Int
        /// Those group commits in the third store.
        var groupedSeconds: Double
        /// The fourth store (16 KiB pages): the same sorted rows as the third's, in one transaction.
        var largePageSortedSeconds: Double
        /// The fourth store: then the same group commits as the third's.
        var largePageGroupedSeconds: Double
        /// The fourth store's fill, as `fillSeconds`.
        var largePageFillSeconds: Double
        /// The fourth store's connection, read back before its sorted insert (its `page_size` among them).
        var largePageSettings: SQLiteFloor.Settings
    }

    /// Rows per transaction of the page-size diagnostic's group commits: target 2's shape (64 clients adding at once).
    static let groupSize = 64
    /// The page size the diagnostic compares with the store's 4 KiB.
    static let largePageSize = 16_384

    static func run(options: BenchOptions, root: String) async throws -> Result {
        let directory = root + "/bulk"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let store = try SQLiteNotificationStore(path: path)
        let batch = options.bulkBatch

        progress("bulk: filling \(Format.count(options.bulkBase)) pending")
        let fillSeconds = try await fill(store, options: options)

        // The baseline: the same shape of rows, encoded first, then one transaction of prepared INSERTs.
        progress("bulk: raw single-transaction insert of \(Format.count(options.bulk)) rows")
        var rawGenerator = RawRowGenerator(seed: options.seed &+ 1, prefix: "raw")
        let encodeStart = ContinuousClock.now
        let rows = try rawGenerator.next(options.bulk)
        let encodeSeconds = (ContinuousClock.now - encodeStart).seconds
        let pool = try RawStore.open(path)
        let rawSeconds = try rawInsert(rows, into: pool)

        progress("bulk: engine add(contentsOf:) of \(Format.count(options.bulk)) requests")
        let scheduler = NotificationScheduler.bench(store: store)
        let engineApp = "com.example.bench.bulk"
        try await scheduler.authorizeForBench(engineApp)
        var engineGenerator = SplitMix64(seed: options.seed &+ 2)
        let requests = (0..<options.bulk).map { index in
            BatchRequest(
                appID: engineApp,
                spec: Workload.spec(
                    identifier: Workload.identifier(index, prefix: "eng"), index: index,
                    interval: Workload.farInterval(using: &engineGenerator)))
        }
        let engineStart = ContinuousClock.now
        for start in stride(from: 0, to: requests.count, by: batch) {
            _ = try await scheduler.add(contentsOf: Array(requests[start..<min(start + batch, requests.count)]))
        }
        let engineSeconds = (ContinuousClock.now - engineStart).seconds

        let importSeconds = try importThroughCommand(rows: options.bulk, batch: batch, store: path, directory: directory)

        progress("bulk: raw INSERT of \(Format.count(options.bulk)) rows in transactions of \(Format.count(batch))")
        var batchedGenerator = RawRowGenerator(seed: options.seed &+ 3, prefix: "rawb")
        let batchedRows = try batchedGenerator.next(options.bulk)
        var rawBatchedSeconds = 0.0
        for start in stride(from: 0, to: batchedRows.count, by: batch) {
            rawBatchedSeconds += try rawInsert(Array(batchedRows[start..<min(start + batch, batchedRows.count)]), into: pool)
        }
        progress("bulk: raw single-transaction insert of \(Format.count(options.bulk)) rows, again")
        var againGenerator = RawRowGenerator(seed: options.seed &+ 4, prefix: "rawc")
        let rawAgainSeconds = try rawInsert(againGenerator.next(options.bulk), into: pool)
        progress("bulk: engine add(contentsOf:) of \(Format.count(options.bulk)) requests in one call")
        let oneCallApp = "com.example.bench.bulk-one"
        try await scheduler.authorizeForBench(oneCallApp)
        var oneCallGenerator = SplitMix64(seed: options.seed &+ 5)
        let oneCall = (0..<options.bulk).map { index in
            BatchRequest(
                appID: oneCallApp,
                spec: Workload.spec(
                    identifier: Workload.identifier(index, prefix: "one"), index: index,
                    interval: Workload.farInterval(using: &oneCallGenerator)))
        }
        let oneCallStart = ContinuousClock.now
        _ = try await scheduler.add(contentsOf: oneCall)
        let engineOneCallSeconds = (ContinuousClock.now - oneCallStart).seconds

        // The floor, last, so that nothing above moves: each in a store of its own, filled as the first.
        // The last two also show what 16 KiB pages trade: the same sorted rows, then the same group commits of 64.
        let groupedRows = max(options.bulk / 4, 1)
        let floor = try await floorInsert(
            sorted: false, seed: options.seed &+ 6, prefix: "capi", pageSize: nil, groupedRows: 0, options: options,
            directory: directory)
        let sortedFloor = try await floorInsert(
            sorted: true, seed: options.seed &+ 7, prefix: "caps", pageSize: nil, groupedRows: groupedRows,
            options: options, directory: directory)
        let largePages = try await floorInsert(
            sorted: true, seed: options.seed &+ 7, prefix: "caps", pageSize: largePageSize, groupedRows: groupedRows,
            options: options, directory: directory)
        return Result(
            base: options.bulkBase, rows: options.bulk, fillSeconds: fillSeconds, rawSeconds: rawSeconds,
            encodeSeconds: encodeSeconds, engineSeconds: engineSeconds, importSeconds: importSeconds, batch: batch,
            rawBatchedSeconds: rawBatchedSeconds, rawAgainSeconds: rawAgainSeconds,
            engineOneCallSeconds: engineOneCallSeconds, floorSeconds: floor.seconds,
            sortedFloorSeconds: sortedFloor.seconds, sortSeconds: sortedFloor.sortSeconds,
            floorFillSeconds: [floor.fillSeconds, sortedFloor.fillSeconds],
            floorSettings: floor.settings, groupedRows: groupedRows, groupedSeconds: sortedFloor.groupedSeconds,
            largePageSortedSeconds: largePages.seconds, largePageGroupedSeconds: largePages.groupedSeconds,
            largePageFillSeconds: largePages.fillSeconds, largePageSettings: largePages.settings)
    }

    /// Fills `store` with `options.bulkBase` far-future requests through `insertPending(batch:)`, 50,000 a
    /// transaction, from `options.seed` (so every store filled here holds the same rows); returns the seconds it took.
    static func fill(_ store: SQLiteNotificationStore, options: BenchOptions) async throws -> Double {
        var fillGenerator = SplitMix64(seed: options.seed)
        let fillStart = ContinuousClock.now
        var filled = 0
        while filled < options.bulkBase {
            let count = min(50_000, options.bulkBase - filled)
            let requests = (filled..<filled + count).map { index in
                let interval = Workload.farInterval(using: &fillGenerator)
                return PendingRequest(
                    appID: Workload.appID,
                    spec: Workload.spec(identifier: Workload.identifier(index), index: index, interval: interval),
                    addedAt: Date(), nextFireDate: Date().addingTimeInterval(interval))
            }
            _ = try await store.insertPending(batch: requests, cap: nil, at: Date())
            filled += count
        }
        return (ContinuousClock.now - fillStart).seconds
    }

    /// Fills a new store in `directory` as the first one (the store stays open, as the first does during its raw
    /// baseline), then inserts `options.bulk` rows generated from `seed` with identifiers `prefix-NNNNNNN` through
    /// ``SQLiteFloor``, sorted by fire date first when `sorted` is set, then `groupedRows` more (another generator,
    /// in their order) in transactions of ``groupSize``; removes the store's files afterwards.
    ///
    /// - Parameter pageSize: the new file's page size; `nil` for SQLite's default (4 KiB), the store's.
    static func floorInsert(
        sorted: Bool, seed: UInt64, prefix: String, pageSize: Int?, groupedRows: Int, options: BenchOptions,
        directory: String
    ) async throws -> (
        seconds: Double, sortSeconds: Double, fillSeconds: Double, settings: SQLiteFloor.Settings,
        groupedSeconds: Double
    ) {
        let path = directory + "/\(prefix)-\(pageSize ?? 0).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        if let pageSize { try SQLiteFloor.createStoreFile(at: path, pageSize: pageSize) }
        let store = try SQLiteNotificationStore(path: path)
        progress("bulk: filling another store with \(Format.count(options.bulkBase)) pending, for SQLite's own insert")
        let fillSeconds = try await fill(store, options: options)
        var generator = RawRowGenerator(seed: seed, prefix: prefix)
        var rows = try generator.next(options.bulk)
        var sortSeconds = 0.0
        if sorted {
            let sortStart = ContinuousClock.now
            rows = SQLiteFloor.sortedByFireDate(rows)
            sortSeconds = (ContinuousClock.now - sortStart).seconds
        }
        let order = sorted ? " sorted by fire date" : ""
        progress("bulk: SQLite's own insert (C API) of \(Format.count(options.bulk)) rows\(order), 1 transaction")
        let (seconds, settings) = try SQLiteFloor.insert(rows, appID: Workload.marginalAppID, path: path)
        var groupedSeconds = 0.0
        if groupedRows > 0 {
            progress("bulk: SQLite's own insert (C API) of \(Format.count(groupedRows)) rows, \(groupSize) a txn")
            var groupedGenerator = RawRowGenerator(seed: seed &+ 100, prefix: prefix + "g")
            groupedSeconds = try SQLiteFloor.insert(
                groupedGenerator.next(groupedRows), appID: Workload.marginalAppID, path: path,
                rowsPerTransaction: groupSize
            ).seconds
        }
        withExtendedLifetime(store) {}
        return (seconds, sortSeconds, fillSeconds, settings, groupedSeconds)
    }

    /// Inserts pre-encoded rows with one prepared statement in one transaction; returns the seconds it took.
    static func rawInsert(_ rows: [RawPendingRow], into pool: DatabasePool) throws -> Double {
        let start = ContinuousClock.now
        try pool.write { db in
            let statement = try db.cachedStatement(sql: RawStore.insertSQL)
            for row in rows {
                try statement.execute(arguments: [Workload.marginalAppID, row.identifier, row.spec, row.addedAt, row.nextFire])
            }
        }
        return (ContinuousClock.now - start).seconds
    }

    /// Runs `unotify import` (the executable beside this one) on a JSON Lines file of `rows` requests shaped like
    /// ``Workload/spec(identifier:index:interval:)``; `nil` when there is no such executable.
    static func importThroughCommand(rows: Int, batch: Int, store: String, directory: String) throws -> Double? {
        let unotify = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("unotify")
        guard FileManager.default.isExecutableFile(atPath: unotify.path) else { return nil }
        progress("bulk: unotify import of \(Format.count(rows)) lines")
        var text = ""
        text.reserveCapacity(rows * 330)
        var generator = SplitMix64(seed: 7)
        for index in 0..<rows {
            let seconds = Int(Workload.farInterval(using: &generator))
            text += #"{"id": "imp-\#(index)", "title": "Reminder \#(index)", "subtitle": "Benchmark", "#
                + #""body": "Your scheduled reminder is due: review the notes, answer the open questions and plan tomorrow.", "#
                + #""category": "bench.reminder", "thread": "thread-\#(index % 64)", "#
                + #""user-info": {"index": \#(index), "kind": "bench"}, "in": "\#(seconds)s"}"# + "\n"
        }
        let file = directory + "/requests.jsonl"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = unotify
        process.arguments = [
            "import", file, "--batch-size", String(batch), "--store", store, "--mode", "embedded", "--app", "com.example.bench.import",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["OPENUN_PENDING_CAP"] = "off"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("unotify import exited with status \(process.terminationStatus)")
        }
        return (ContinuousClock.now - start).seconds
    }
}

/// A bench step that could not run.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
