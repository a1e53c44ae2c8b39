import BenchSupport
import Foundation
import GRDB
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// Figure 4: many requests at once into a store that already holds `options.bulkBase` pending, through the engine's
/// batch add and through `unotify import`, beside a raw single-transaction insert of the same rows in the same run.
enum BulkBench {
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
    }

    static func run(options: BenchOptions, root: String) async throws -> Result {
        let directory = root + "/bulk"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let store = try SQLiteNotificationStore(path: path)
        let batch = options.bulkBatch

        progress("bulk: filling \(Format.count(options.bulkBase)) pending")
        var fillGenerator = SplitMix64(seed: options.seed)
        let fillStart = ContinuousClock.now
        var filled = 0
        while filled < options.bulkBase {
            let count = min(50_000, options.bulkBase - filled)
            let requests = (filled..<filled + count).map { index in
                let interval = Workload.farInterval(using: &fillGenerator)
                return PendingRequest(
                    appID: Workload.appID, spec: Workload.spec(identifier: Workload.identifier(index), index: index, interval: interval),
                    addedAt: Date(), nextFireDate: Date().addingTimeInterval(interval))
            }
            _ = try await store.insertPending(batch: requests, cap: nil, at: Date())
            filled += count
        }
        let fillSeconds = (ContinuousClock.now - fillStart).seconds

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
        return Result(
            base: options.bulkBase, rows: options.bulk, fillSeconds: fillSeconds, rawSeconds: rawSeconds,
            encodeSeconds: encodeSeconds, engineSeconds: engineSeconds, importSeconds: importSeconds, batch: batch,
            rawBatchedSeconds: rawBatchedSeconds, rawAgainSeconds: rawAgainSeconds,
            engineOneCallSeconds: engineOneCallSeconds)
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
