import BenchSupport
import Foundation
import GRDB
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// Figure 2 at one size: filling a store, adding on top of it, and reopening it; with the raw GRDB baselines.
struct SizeResult: Sendable {
    enum Fill: Sendable {
        /// Through `NotificationScheduler.add`, one transaction per request.
        case engine(seconds: Double)
        /// Through the bench's own batched INSERT into the store's `pending` table, one transaction; the engine
        /// path was projected to take `projected` seconds.
        case benchBatched(seconds: Double, projected: Double)
    }

    var size: Int
    var fill: Fill
    var marginal: Int
    var marginalEngineSeconds: Double
    var marginalRawSeconds: Double
    /// Raw GRDB, one transaction per row, into a fresh file; `nil` when skipped (see `rawPerRowProjected`).
    var rawPerRowSeconds: Double?
    var rawPerRowProjected: Double?
    /// Raw GRDB, all rows in one transaction, into a fresh file.
    var rawBatchedSeconds: Double
    var restartWarm: [Double]
    var restartCold: [Double]
    var rawOpenWarm: [Double]
    var rawOpenCold: [Double]
    var coldDropWorked: Bool
    var enginePayloadBytes: Double
    var rawPayloadBytes: Double
    var engineRows: Int
    var fileBytes: Int64
    var nextWake: Date?
    /// Where the time of one engine `add` goes.
    var breakdown: AddBreakdown?
    /// The store calls of one pass of the engine loop with nothing due, on the filled store.
    var loopCalls: LoopCalls
}

/// Per-call times of the store calls the engine loop makes on every pass (`deliverDue()` then `nextWakeDate()`),
/// with nothing due, next to raw GRDB doing what those calls need: one index probe.
struct LoopCalls: Sendable {
    /// `SQLiteNotificationStore.claimDue(at: now, leaseUntil: now + 60, limit: 256)`, nothing due.
    var claimDue: [Double]
    /// `SQLiteNotificationStore.nextWakeDate()`.
    var nextWakeDate: [Double]
    /// Raw GRDB write transaction: `SELECT * FROM pending WHERE claimUntil IS NULL AND nextFire <= ? ORDER BY
    /// nextFire LIMIT 256` (the due-request probe claimDue needs).
    var rawClaimProbe: [Double]
    /// Raw GRDB read: `SELECT MIN(nextFire) FROM pending WHERE claimUntil IS NULL`.
    var rawWakeProbe: [Double]
}

/// Per-call cost of the parts of `NotificationScheduler.add`, each called `calls` times in a row on the filled
/// store (diagnostic: the parts overlap and are not meant to add up exactly).
struct AddBreakdown: Sendable {
    var calls: Int
    /// `NotificationScheduler.add` (the same figure as the marginal adds, measured again here).
    var schedulerAdd: Double
    /// `SQLiteNotificationStore.appState(appID:)`, the read `add` makes first.
    var appStateRead: Double
    /// `SQLiteNotificationStore.insertPending(_:cap: nil, at:)` called directly: DELETE + INSERT + JSON, one
    /// transaction.
    var insertPending: Double
    /// Encoding the spec to JSON as the store does.
    var jsonEncode: Double
    /// Raw GRDB, one INSERT per transaction, pre-encoded rows.
    var rawInsert: Double
    /// `clock.calendar` plus `TriggerPlanner.firstFireDate`: the planning `add` does without the store.
    var planning: Double
}

enum AddRestartBench {
    /// Adds far-future requests `indices` through the engine, one `add` (one transaction) each, drawing their
    /// intervals from `generator`. Returns the seconds spent.
    static func engineAdd(
        _ scheduler: NotificationScheduler, indices: Range<Int>, generator: inout SplitMix64, appID: String,
        prefix: String
    ) async throws -> Double {
        let start = ContinuousClock.now
        var lastReport = start
        for index in indices {
            let interval = Workload.farInterval(using: &generator)
            let spec = Workload.spec(identifier: Workload.identifier(index, prefix: prefix), index: index, interval: interval)
            try await scheduler.add(spec, appID: appID)
            if index % 1_000 == 999, ContinuousClock.now - lastReport > .seconds(15) {
                lastReport = ContinuousClock.now
                let elapsed = (lastReport - start).seconds
                let done = index + 1 - indices.lowerBound
                progress(
                    "  engine add: \(Format.count(done)) / \(Format.count(indices.count)) in \(Format.duration(elapsed)) "
                        + "(\(Format.rate(rows: done, seconds: elapsed)))")
            }
        }
        return (ContinuousClock.now - start).seconds
    }

    /// Times the parts of `add` on the filled store, under the marginal app (removed afterwards by the caller).
    static func addBreakdown(
        store: SQLiteNotificationStore, scheduler: NotificationScheduler, path: String, calls: Int
    ) async throws -> AddBreakdown {
        func perCall(_ body: () async throws -> Void) async rethrows -> Double {
            let start = ContinuousClock.now
            try await body()
            return (ContinuousClock.now - start).seconds / Double(calls)
        }
        var generator = SplitMix64(seed: 99)
        let schedulerAdd = try await perCall {
            for index in 0..<calls {
                let spec = Workload.spec(
                    identifier: Workload.identifier(index, prefix: "prba"), index: index,
                    interval: Workload.farInterval(using: &generator))
                try await scheduler.add(spec, appID: Workload.marginalAppID)
            }
        }
        let appStateRead = try await perCall {
            for _ in 0..<calls { _ = try await store.appState(appID: Workload.marginalAppID) }
        }
        let insertPending = try await perCall {
            for index in 0..<calls {
                let interval = Workload.farInterval(using: &generator)
                let now = Date()
                let spec = Workload.spec(identifier: Workload.identifier(index, prefix: "prbi"), index: index, interval: interval)
                let request = PendingRequest(
                    appID: Workload.marginalAppID, spec: spec, addedAt: now, nextFireDate: now.addingTimeInterval(interval))
                _ = try await store.insertPending(request, cap: nil, at: now)
            }
        }
        let jsonEncode = try await perCall {
            for index in 0..<calls {
                let spec = Workload.spec(
                    identifier: Workload.identifier(index, prefix: "prbj"), index: index,
                    interval: Workload.farInterval(using: &generator))
                _ = try Workload.encodeSpec(spec)
            }
        }
        let clock = SystemNotificationClock()
        var planned = 0.0
        let planning = await perCall {
            for _ in 0..<calls {
                let trigger = TriggerSpec.timeInterval(Workload.farInterval(using: &generator), repeats: false)
                let date = TriggerPlanner.firstFireDate(for: trigger, addedAt: clock.now, calendar: clock.calendar)
                planned += date?.timeIntervalSince1970 ?? 0
            }
        }
        precondition(planned > 0)
        var rows = RawRowGenerator(seed: 98, prefix: "prbr")
        let pool = try RawStore.open(path)
        let rawInsert = try RawStore.insertPerRow(pool: pool, total: calls, appID: Workload.marginalAppID, generator: &rows)
            / Double(calls)
        try pool.close()
        return AddBreakdown(
            calls: calls, schedulerAdd: schedulerAdd, appStateRead: appStateRead, insertPending: insertPending,
            jsonEncode: jsonEncode, rawInsert: rawInsert, planning: planning)
    }

    /// The index probes a loop pass needs, through raw GRDB: the due requests in a write transaction (as
    /// `claimDue` takes them), then the next fire date.
    static func rawLoopProbes(pool: DatabasePool, now: Date) throws -> (claim: Double, wake: Double) {
        var start = ContinuousClock.now
        _ = try pool.write { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM pending WHERE claimUntil IS NULL AND nextFire <= ? ORDER BY nextFire LIMIT 256",
                arguments: [now.timeIntervalSince1970])
        }
        let claim = (ContinuousClock.now - start).seconds
        start = ContinuousClock.now
        _ = try pool.read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(nextFire) FROM pending WHERE claimUntil IS NULL")
        }
        return (claim, (ContinuousClock.now - start).seconds)
    }

    /// Opens a new store on the file and a new engine over it, until `nextWakeDate()` answers and `deliverDue()`
    /// returns. The store closes when this returns (outside the measured time).
    static func engineRestart(path: String) async throws -> (seconds: Double, next: Date?) {
        let start = ContinuousClock.now
        let store = try SQLiteNotificationStore(path: path)
        let scheduler = NotificationScheduler.bench(store: store)
        let next = try await store.nextWakeDate()
        _ = await scheduler.deliverDue()
        return ((ContinuousClock.now - start).seconds, next)
    }

    /// The baseline of a restart: a raw `DatabasePool` with the same configuration on the same file, and the
    /// same `MIN(nextFire)` query.
    static func rawOpen(path: String) throws -> Double {
        let start = ContinuousClock.now
        let pool = try RawStore.open(path)
        _ = try pool.read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(nextFire) FROM pending WHERE claimUntil IS NULL")
        }
        return (ContinuousClock.now - start).seconds
    }

    static func fileBytes(_ path: String) -> Int64 {
        ["", "-wal"].reduce(Int64(0)) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)??.int64Value
            return total + (size ?? 0)
        }
    }

    /// Runs figure 2 at `size`. `engineRate` and `rawPerRowRate` are the rates measured at the main size (rows per
    /// second), used to decide whether one-transaction-per-row fills fit the budget; `nil` forces them.
    static func run(
        size: Int, directory: String, options: BenchOptions, engineRate: Double?, rawPerRowRate: Double?
    ) async throws -> (SizeResult, enginePath: String) {
        let label = "[\(Format.size(size))]"
        let enginePath = directory + "/engine-\(Format.size(size)).sqlite"
        let batchedPath = directory + "/raw-batched-\(Format.size(size)).sqlite"
        let marginal = options.marginal

        // 1. The engine's store, filled through the engine when that fits the budget.
        let fill: SizeResult.Fill
        let engineProjected = engineRate.map { Double(size) / $0 } ?? 0
        if engineRate == nil || engineProjected <= options.perRowBudget {
            progress("\(label) filling the engine store through NotificationScheduler.add (one transaction each)")
            let store = try SQLiteNotificationStore(path: enginePath)
            let scheduler = NotificationScheduler.bench(store: store)
            try await scheduler.authorizeForBench(Workload.appID)
            try await scheduler.authorizeForBench(Workload.marginalAppID)
            var generator = SplitMix64(seed: options.seed)
            let seconds = try await engineAdd(
                scheduler, indices: 0..<size, generator: &generator, appID: Workload.appID, prefix: "far")
            fill = .engine(seconds: seconds)
            progress("\(label)   \(Format.duration(seconds)), \(Format.rate(rows: size, seconds: seconds))")
        } else {
            progress(
                "\(label) engine add projected at \(Format.duration(engineProjected)) > budget "
                    + "\(Format.duration(options.perRowBudget)): filling through the bench's batched raw-schema path")
            do {
                let store = try SQLiteNotificationStore(path: enginePath)
                let scheduler = NotificationScheduler.bench(store: store)
                try await scheduler.authorizeForBench(Workload.appID)
                try await scheduler.authorizeForBench(Workload.marginalAppID)
                // Records the plan zone as the engine's first add would.
                _ = await scheduler.deliverDue()
            }
            var generator = RawRowGenerator(seed: options.seed, prefix: "far")
            let pool = try RawStore.open(enginePath)
            let seconds = try RawStore.insertBatched(pool: pool, total: size, appID: Workload.appID, generator: &generator)
            try pool.close()
            fill = .benchBatched(seconds: seconds, projected: engineProjected)
            progress("\(label)   \(Format.duration(seconds)), \(Format.rate(rows: size, seconds: seconds))")
        }

        // 2. Baseline: the same rows, raw GRDB, one transaction, into a fresh file with the store's schema.
        progress("\(label) baseline: raw GRDB, all rows in one transaction, fresh file")
        try RawStore.createFreshStoreFile(at: batchedPath)
        let rawPool = try RawStore.open(batchedPath)
        var rawRows = RawRowGenerator(seed: options.seed, prefix: "far")
        let rawBatchedSeconds = try RawStore.insertBatched(
            pool: rawPool, total: size, appID: Workload.appID, generator: &rawRows)
        progress("\(label)   \(Format.duration(rawBatchedSeconds)), \(Format.rate(rows: size, seconds: rawBatchedSeconds))")

        // 3. Adding on top of both, interleaved in chunks so load changes on the machine hit both alike; the
        //    engine's extra requests are removed afterwards so its store holds `size` requests again.
        progress("\(label) adding \(Format.count(marginal)) more: engine add vs raw GRDB one transaction per row, interleaved")
        var marginalEngineSeconds = 0.0
        var marginalRawSeconds = 0.0
        var breakdown: AddBreakdown?
        do {
            let store = try SQLiteNotificationStore(path: enginePath)
            let scheduler = NotificationScheduler.bench(store: store)
            var engineGenerator = SplitMix64(seed: options.seed &+ 1)
            var rawGenerator = RawRowGenerator(seed: options.seed &+ 1, prefix: "extra")
            var done = 0
            while done < marginal {
                let chunk = Swift.min(1_000, marginal - done)
                marginalEngineSeconds += try await engineAdd(
                    scheduler, indices: done..<(done + chunk), generator: &engineGenerator, appID: Workload.marginalAppID,
                    prefix: "extra")
                marginalRawSeconds += try RawStore.insertPerRow(
                    pool: rawPool, total: chunk, appID: Workload.marginalAppID, generator: &rawGenerator)
                done += chunk
            }
            progress("\(label) where an add's time goes")
            breakdown = try await addBreakdown(
                store: store, scheduler: scheduler, path: enginePath, calls: Swift.max(200, Swift.min(2_000, marginal)))
            try await scheduler.removePending(appID: Workload.marginalAppID, identifiers: nil)
        }
        try rawPool.close()
        let rawStats = try RawStore.payloadStats(batchedPath, appID: Workload.appID)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: batchedPath + suffix) }

        let engineStats = try RawStore.payloadStats(enginePath, appID: Workload.appID)
        let fileBytes = fileBytes(enginePath)

        // 4. Restarts, warm page cache then dropped page cache, each next to its raw baseline on the same file.
        progress("\(label) restart-to-ready, \(options.restartRepeats)× each")
        _ = try await engineRestart(path: enginePath)  // settles the WAL left by the last writer
        var restartWarm: [Double] = []
        var restartCold: [Double] = []
        var rawOpenWarm: [Double] = []
        var rawOpenCold: [Double] = []
        var dropWorked = true
        var nextWake: Date?
        for _ in 0..<options.restartRepeats {
            let (seconds, next) = try await engineRestart(path: enginePath)
            restartWarm.append(seconds)
            nextWake = next
            rawOpenWarm.append(try rawOpen(path: enginePath))
        }
        for _ in 0..<options.restartRepeats {
            dropWorked = dropPageCache(forDatabaseAt: enginePath) && dropWorked
            restartCold.append(try await engineRestart(path: enginePath).seconds)
            dropWorked = dropPageCache(forDatabaseAt: enginePath) && dropWorked
            rawOpenCold.append(try rawOpen(path: enginePath))
        }

        // 5. The store calls of one loop pass, each next to the raw index probe it needs.
        progress("\(label) the engine loop's store calls, nothing due, \(options.restartRepeats)× each")
        var loopCalls = LoopCalls(claimDue: [], nextWakeDate: [], rawClaimProbe: [], rawWakeProbe: [])
        do {
            let store = try SQLiteNotificationStore(path: enginePath)
            let pool = try RawStore.open(enginePath)
            for _ in 0..<options.restartRepeats {
                let now = Date()
                var start = ContinuousClock.now
                let claimed = try await store.claimDue(at: now, leaseUntil: now.addingTimeInterval(60), limit: 256)
                loopCalls.claimDue.append((ContinuousClock.now - start).seconds)
                precondition(claimed.isEmpty, "nothing should be due in the bench store")
                start = ContinuousClock.now
                _ = try await store.nextWakeDate()
                loopCalls.nextWakeDate.append((ContinuousClock.now - start).seconds)
                let probes = try rawLoopProbes(pool: pool, now: now)
                loopCalls.rawClaimProbe.append(probes.claim)
                loopCalls.rawWakeProbe.append(probes.wake)
            }
            try pool.close()
        }

        // 6. Baseline: raw GRDB, one transaction per row, into a fresh file, when that fits the budget.
        var rawPerRowSeconds: Double?
        let rawPerRowProjected = rawPerRowRate.map { Double(size) / $0 }
        if let rawPerRowProjected, rawPerRowProjected > options.perRowBudget {
            progress(
                "\(label) baseline: raw GRDB one transaction per row skipped: projected "
                    + "\(Format.duration(rawPerRowProjected)) > budget")
        } else {
            progress("\(label) baseline: raw GRDB, one transaction per row, fresh file")
            let perRowPath = directory + "/raw-per-row-\(Format.size(size)).sqlite"
            try RawStore.createFreshStoreFile(at: perRowPath)
            let pool = try RawStore.open(perRowPath)
            var generator = RawRowGenerator(seed: options.seed, prefix: "far")
            let seconds = try RawStore.insertPerRow(pool: pool, total: size, appID: Workload.appID, generator: &generator)
            try pool.close()
            rawPerRowSeconds = seconds
            progress("\(label)   \(Format.duration(seconds)), \(Format.rate(rows: size, seconds: seconds))")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: perRowPath + suffix) }
        }

        let result = SizeResult(
            size: size, fill: fill, marginal: marginal, marginalEngineSeconds: marginalEngineSeconds,
            marginalRawSeconds: marginalRawSeconds, rawPerRowSeconds: rawPerRowSeconds,
            rawPerRowProjected: rawPerRowProjected, rawBatchedSeconds: rawBatchedSeconds,
            restartWarm: restartWarm, restartCold: restartCold, rawOpenWarm: rawOpenWarm, rawOpenCold: rawOpenCold,
            coldDropWorked: dropWorked, enginePayloadBytes: engineStats.meanBytes, rawPayloadBytes: rawStats.meanBytes,
            engineRows: engineStats.rows, fileBytes: fileBytes, nextWake: nextWake, breakdown: breakdown,
            loopCalls: loopCalls)
        return (result, enginePath)
    }
}
