import BenchSupport
import Foundation
import NotificationClient
import NotificationDaemon
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// The engine settings of every daemon and embedded engine in figures 1 and 2: no pending cap (so thousands of
/// adds to one app are all kept, as `unotifyd --pending-cap off`), otherwise the defaults.
private var benchEngine: EngineConfiguration {
    var engine = EngineConfiguration(pendingCap: nil)
    engine.presentationWhenUnanswered = [.banner, .list, .sound, .badge]  // as `unotifyd` sets it
    return engine
}

/// A `NotificationDaemon` running in this process on a temporary socket, with the system clock and a presenter
/// that does nothing.
final class InProcessDaemon: Sendable {
    let daemon: NotificationDaemon
    let socketPath: String
    private let task: Task<Void, any Error>

    /// The store goes in a folder of its own: the daemon watches its store's folder for writes.
    init(folder: TemporaryFolder, name: String) async throws {
        socketPath = folder.file("\(name).sock")
        var configuration = DaemonConfiguration(
            socketPath: socketPath, storePath: folder.file("\(name)/store.sqlite"), engine: benchEngine)
        configuration.maximumConnectionsPerPeer = 1_024  // figure 2 opens one connection per client
        let daemon = try NotificationDaemon(
            configuration: configuration, clock: SystemNotificationClock(), presenter: NullPresenter())
        self.daemon = daemon
        task = Task { try await daemon.run() }
        await daemon.waitUntilListening()
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// One way of adding a request, timed add by add.
private struct AddSeries: Sendable {
    var name: String
    var add: @Sendable (String, Int) async throws -> Void
    /// The process whose CPU time the series costs besides this one (a spawned daemon).
    var pid: Int32?
    var samples: [Double] = []
    /// CPU seconds of this process and of `pid` during the series.
    var cpu = 0.0
    /// Context switches of this process and of `pid` (its live threads) during the series.
    var ownSwitches = 0
    var otherSwitches = 0
}

/// An embedded engine as the daemon runs it, minus the socket: the delivery loop running and the store monitor
/// waking it on writes to the store file (its own included).
private final class LoopedEngine: Sendable {
    let scheduler: NotificationScheduler
    private let monitor: StoreFileMonitor?
    private let task: Task<Void, Never>

    init(storePath: String) throws {
        let store = try SQLiteNotificationStore(path: storePath)
        let scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: NullPresenter(), configuration: benchEngine)
        self.scheduler = scheduler
        // As the daemon and embedded mode do: only another process's commits wake the loop.
        _ = store.changedElsewhere()
        monitor = StoreFileMonitor(watching: store, at: storePath) { scheduler.storeDidChange() }
        task = Task { await scheduler.run() }
    }

    func stop() async {
        task.cancel()
        await task.value
        withExtendedLifetime(monitor) {}
    }
}

// MARK: - Figure 1

/// Figure 1: sequential add round trips through the daemon (in-process and spawned) against the embedded
/// `NotificationScheduler.add` on the same kind of store (SQLite file in /tmp), interleaved in blocks so drifts of
/// the noisy machine hit every series alike.
func figureAddRoundTrip(_ options: Options, folder: TemporaryFolder, binary: String) async throws -> [Figure] {
    let app = "bench.latency"
    let embedded = NotificationScheduler(
        store: try SQLiteNotificationStore(path: folder.file("latency-embedded/store.sqlite")),
        clock: SystemNotificationClock(),
        presenter: NullPresenter(), configuration: benchEngine)
    let looped = try LoopedEngine(storePath: folder.file("latency-looped/store.sqlite"))
    let inProcess = try await InProcessDaemon(folder: folder, name: "latency-inprocess")
    let spawned = try await SpawnedDaemon(binary: binary, folder: folder, name: "latency-spawned")
    let inProcessClient = DaemonBackend(socketPath: inProcess.socketPath)
    let spawnedClient = DaemonBackend(socketPath: spawned.socketPath)

    var series = [
        AddSeries(
            name: "embedded", add: { id, index in try await embedded.add(Workload.addSpec(id, index), appID: app) }),
        AddSeries(
            name: "embedded + loop",
            add: { id, index in try await looped.scheduler.add(Workload.addSpec(id, index), appID: app) }
        ),
        AddSeries(
            name: "in-process daemon",
            add: { id, index in try await inProcessClient.add(Workload.addSpec(id, index), appID: app) }),
        AddSeries(
            name: "spawned unotifyd",
            add: { id, index in try await spawnedClient.add(Workload.addSpec(id, index), appID: app) },
            pid: spawned.pid),
    ]
    let warmUp = options.quick ? 100 : 200
    progress("1: warming up (\(warmUp) adds per series)")
    for entry in series {
        for index in 0..<warmUp { try await entry.add("warm-\(index)", index) }
    }
    let block = max(1, options.adds / options.addBlocks)
    progress(
        "1: \(Format.count(block * options.addBlocks)) sequential adds per series, in \(options.addBlocks) interleaved blocks"
    )
    for round in 0..<options.addBlocks {
        for position in series.indices {
            let entry = series[position]
            let cpuBefore = ProcFS.cpuSeconds(pid: getpid()) + (entry.pid.map(ProcFS.cpuSeconds) ?? 0)
            let ownSwitchesBefore = ProcFS.ownContextSwitches
            let otherSwitchesBefore = entry.pid.map(ProcFS.contextSwitches) ?? 0
            var samples: [Double] = []
            samples.reserveCapacity(block)
            for offset in 0..<block {
                let index = round * block + offset
                let start = ContinuousClock.now
                try await entry.add("r-\(index)", index)
                samples.append(start.duration(to: .now).seconds)
            }
            series[position].samples += samples
            series[position].cpu +=
                ProcFS.cpuSeconds(pid: getpid()) + (entry.pid.map(ProcFS.cpuSeconds) ?? 0) - cpuBefore
            series[position].ownSwitches += ProcFS.ownContextSwitches - ownSwitchesBefore
            series[position].otherSwitches += (entry.pid.map(ProcFS.contextSwitches) ?? 0) - otherSwitchesBefore
        }
    }
    await inProcessClient.connection(for: app).close()
    await spawnedClient.connection(for: app).close()
    await inProcess.stop()
    await spawned.stop()
    await looped.stop()

    let base = Percentiles(series[0].samples)
    say(
        "1. add round trip, \(Format.count(base.count)) sequential adds per series, one app, time-interval trigger 1 day away, "
            + "no pending cap, stores in /tmp (WAL, synchronous = FULL)")
    say(
        "   embedded: NotificationScheduler.add, no delivery loop; embedded + loop: the same with run() and the store "
            + "monitor, as the daemon runs it; CPU = this process + the spawned daemon")
    for entry in series {
        let p = Percentiles(entry.samples)
        say(
            "   \(entry.name.padding(toLength: 18, withPad: " ", startingAt: 0)) p50 \(Format.duration(p.p50))  "
                + "p99 \(Format.duration(p.p99))  mean \(Format.duration(p.mean))  max \(Format.duration(p.max))  "
                + "CPU \(Format.duration(entry.cpu / Double(p.count))) per add")
    }
    // Thread wake-ups: each hand-over of an add from one thread to another costs about two context switches.
    say("   context switches per add (this process + the spawned daemon's live threads):")
    for entry in series {
        let count = Double(max(1, entry.samples.count))
        say(
            "   \(entry.name.padding(toLength: 18, withPad: " ", startingAt: 0)) "
                + "\(Format.number(Double(entry.ownSwitches) / count, decimals: 1)) + "
                + "\(Format.number(Double(entry.otherSwitches) / count, decimals: 1))")
    }
    // Per block, in order: a drift that follows the store's growth shows here (each series' store gains `block`
    // requests per block).
    say(
        "   p50 per block of \(Format.count(block)) (store growing from \(Format.count(warmUp)) to "
            + "\(Format.count(warmUp + block * options.addBlocks)) requests):")
    for entry in series {
        let blocks = stride(from: 0, to: entry.samples.count, by: block).map {
            Format.duration(Percentiles(Array(entry.samples[$0..<min($0 + block, entry.samples.count)])).p50)
        }
        say("   \(entry.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(blocks.joined(separator: "  "))")
    }
    return series.filter { $0.name.contains("daemon") || $0.name.contains("unotifyd") }.enumerated().map {
        offset, entry in
        let p = Percentiles(entry.samples)
        return Figure(
            number: offset == 0 ? "1a" : "1b",
            measure:
                "add round trip p50 / p99, \(entry.name == "spawned unotifyd" ? "spawned unotifyd binary" : "in-process NotificationDaemon") "
                + "(DaemonBackend, \(Format.count(p.count)) sequential)",
            result:
                "\(Format.duration(p.p50)) / \(Format.duration(p.p99)) (CPU \(Format.duration(entry.cpu / Double(p.count)))/add)",
            baseline: "embedded NotificationScheduler.add: \(Format.duration(base.p50)) / \(Format.duration(base.p99)) "
                + "(CPU \(Format.duration(series[0].cpu / Double(base.count)))/add)",
            ratio: "\(Format.ratio(p.p50, base.p50)) / \(Format.ratio(p.p99, base.p99))")
    }
}

// MARK: - Figure 2

/// Adds as fast as each client can for `seconds`: every client awaits its reply before sending the next.
private func sustained(_ clients: [(DaemonBackend, String)], seconds: Double, tag: String) async throws
    -> (adds: Int, seconds: Double, latencies: [Double])
{
    let start = ContinuousClock.now
    let deadline = start + .seconds(seconds)
    let results = try await withThrowingTaskGroup(of: [Double].self) { group in
        for (number, (backend, app)) in clients.enumerated() {
            group.addTask {
                var latencies: [Double] = []
                var index = 0
                while ContinuousClock.now < deadline {
                    let begin = ContinuousClock.now
                    try await backend.add(Workload.addSpec("\(tag)-c\(number)-\(index)", index), appID: app)
                    latencies.append(begin.duration(to: .now).seconds)
                    index += 1
                }
                return latencies
            }
        }
        var all: [[Double]] = []
        for try await latencies in group { all.append(latencies) }
        return all
    }
    let elapsed = start.duration(to: .now).seconds
    let latencies = results.flatMap { $0 }
    return (latencies.count, elapsed, latencies)
}

/// Figure 2: sustained adds per second with 8 concurrent clients (each its own `DaemonBackend`, 8 different apps)
/// against one client, on the same daemon, alternating rounds.
func figureConcurrentAdds(_ options: Options, folder: TemporaryFolder, binary: String) async throws -> [Figure] {
    var figures: [Figure] = []
    say(
        "2. sustained adds, \(options.clients) clients (own DaemonBackend each, \(options.clients) apps) vs 1 client, "
            + "\(options.rateRounds) × \(Format.number(options.rateSeconds, decimals: 1)) s each, alternating")
    for spawnedMode in [false, true] {
        let inProcess = spawnedMode ? nil : try await InProcessDaemon(folder: folder, name: "rate-inprocess")
        let spawned = spawnedMode ? try await SpawnedDaemon(binary: binary, folder: folder, name: "rate-spawned") : nil
        let socket = inProcess?.socketPath ?? spawned!.socketPath
        let single = [(DaemonBackend(socketPath: socket), "bench.single")]
        let many = (0..<options.clients).map { (DaemonBackend(socketPath: socket), "bench.client\($0)") }
        for (backend, app) in single + many { try await backend.add(Workload.addSpec("warm", 0), appID: app) }
        var singleRuns: [(adds: Int, seconds: Double, latencies: [Double])] = []
        var manyRuns: [(adds: Int, seconds: Double, latencies: [Double])] = []
        // CPU and context switches of this process and the spawned daemon over the many-client rounds.
        var manyCPU = 0.0
        var manySwitches = (own: 0, daemon: 0)
        let mode = spawnedMode ? "spawned unotifyd" : "in-process daemon"
        for round in 0..<options.rateRounds {
            progress("2: \(mode), round \(round + 1): 1 client")
            singleRuns.append(try await sustained(single, seconds: options.rateSeconds, tag: "s\(round)"))
            progress("2: \(mode), round \(round + 1): \(options.clients) clients")
            let cpuBefore = ProcFS.cpuSeconds(pid: getpid()) + (spawned.map { ProcFS.cpuSeconds(pid: $0.pid) } ?? 0)
            let switchesBefore = (ProcFS.ownContextSwitches, spawned.map { ProcFS.contextSwitches(pid: $0.pid) } ?? 0)
            manyRuns.append(try await sustained(many, seconds: options.rateSeconds, tag: "m\(round)"))
            manyCPU +=
                ProcFS.cpuSeconds(pid: getpid()) + (spawned.map { ProcFS.cpuSeconds(pid: $0.pid) } ?? 0) - cpuBefore
            manySwitches.own += ProcFS.ownContextSwitches - switchesBefore.0
            manySwitches.daemon += (spawned.map { ProcFS.contextSwitches(pid: $0.pid) } ?? 0) - switchesBefore.1
        }
        for (backend, app) in single + many { await backend.connection(for: app).close() }
        await inProcess?.stop()
        await spawned?.stop()

        func rate(_ runs: [(adds: Int, seconds: Double, latencies: [Double])]) -> Double {
            Double(runs.reduce(0) { $0 + $1.adds }) / runs.reduce(0) { $0 + $1.seconds }
        }
        let singleRate = rate(singleRuns)
        let manyRate = rate(manyRuns)
        let singleLatency = Percentiles(singleRuns.flatMap(\.latencies))
        let manyLatency = Percentiles(manyRuns.flatMap(\.latencies))
        func rounds(_ runs: [(adds: Int, seconds: Double, latencies: [Double])]) -> String {
            runs.map { Format.number(Double($0.adds) / $0.seconds) }.joined(separator: ", ")
        }
        say(
            "   \(mode): 1 client \(Format.number(singleRate)) adds/s (rounds: \(rounds(singleRuns)); "
                + "p50 \(Format.duration(singleLatency.p50)), p99 \(Format.duration(singleLatency.p99)))")
        say(
            "   \(mode): \(options.clients) clients \(Format.number(manyRate)) adds/s (rounds: \(rounds(manyRuns)); "
                + "per-add p50 \(Format.duration(manyLatency.p50)), p99 \(Format.duration(manyLatency.p99)))")
        let manyAdds = Double(max(1, manyRuns.reduce(0) { $0 + $1.adds }))
        say(
            "   \(mode): \(options.clients) clients, CPU \(Format.duration(manyCPU / manyAdds)) per add, "
                + "context switches "
                + "per add \(Format.number(Double(manySwitches.own) / manyAdds, decimals: 1)) (this process) + "
                + "\(Format.number(Double(manySwitches.daemon) / manyAdds, decimals: 1)) (spawned daemon)")
        figures.append(
            Figure(
                number: spawnedMode ? "2b" : "2a",
                measure: "sustained adds/s, \(options.clients) concurrent clients, \(options.clients) apps, \(mode)",
                result: "\(Format.number(manyRate)) /s (p99 \(Format.duration(manyLatency.p99)))",
                baseline: "1 client: \(Format.number(singleRate)) /s (p99 \(Format.duration(singleLatency.p99)))",
                ratio: Format.ratio(manyRate, singleRate)))
    }
    return figures
}
