import BenchSupport
import Foundation
import NotificationClient
import NotificationEngine
import NotificationModel
import NotificationWire

/// Asks a spawned daemon for its status over one short connection (which it then closes).
private func daemonStatus(_ daemon: SpawnedDaemon) async throws -> DaemonStatus {
    let client = DaemonBackend(socketPath: daemon.socketPath)
    let status = try await client.status(appID: "bench.status")
    await client.connection(for: "bench.status").close()
    return status
}

// MARK: - Figure 3

/// The store of figure 3: one-shot time-interval requests over 10 apps, firing 2 to 4 hours from now.
func idleRequest(_ index: Int, now: Date) -> PendingRequest {
    let interval = 7_200 + Double(index % 7_200)
    return PendingRequest(
        appID: "bench.idle\(index % 10)",
        spec: RequestSpec(
            identifier: "idle-\(index)", content: Workload.content(index),
            trigger: .timeInterval(interval, repeats: false)),
        addedAt: now, nextFireDate: now.addingTimeInterval(interval))
}

/// Figure 3: context switches of an idle spawned `unotifyd` holding pending requests that fire hours from now,
/// against a `sleep` process over the same window. An idle daemon with an empty store is measured alongside.
func figureIdleWakeups(_ options: Options, folder: TemporaryFolder, binary: String, filler: StoreFiller) async throws
    -> [Figure]
{
    let storePath = folder.file("idle-full/store.sqlite")
    let now = Date()
    let fill = try await filler.fill(into: [storePath], rows: options.idleRows, label: "3: filling") {
        idleRequest($0, now: now)
    }
    progress("3: \(fill.summary)")
    let full = try await SpawnedDaemon(binary: binary, folder: folder, name: "idle-full", storePath: storePath)
    let empty = try await SpawnedDaemon(binary: binary, folder: folder, name: "idle-empty")
    let sleeper = try Child(try sleepBinary(), ["3600"], label: "sleep", logPath: nil)
    let swiftIdle = try Child(IdleChild.executable, [IdleChild.flag], label: "idle Swift process", logPath: nil)
    let status = try await daemonStatus(full)
    guard status.pendingCount == options.idleRows, let next = status.nextFireDate, next.timeIntervalSinceNow > 3_600
    else {
        await full.stop()
        await empty.stop()
        await sleeper.stop(grace: .zero)
        await swiftIdle.stop(grace: .zero)
        throw BenchError(
            "the idle daemon reports \(status.pendingCount) pending, next fire \(String(describing: status.nextFireDate))"
        )
    }
    progress(
        "3: daemon reports \(Format.count(status.pendingCount)) pending, next fire in \(Format.duration(next.timeIntervalSinceNow)); waiting until idle"
    )
    let pids = [full.pid, empty.pid, swiftIdle.pid, sleeper.pid]
    let settle = await waitUntilIdle(pids)
    progress("3: measuring \(Format.number(options.idleWindow)) s window")
    let before = pids.map { SwitchSample.take(pid: $0) }
    try await Task.sleep(for: .seconds(options.idleWindow))
    let after = pids.map { SwitchSample.take(pid: $0) }
    let threads = pids.map(ProcFS.threadCount)
    await full.stop()
    await empty.stop()
    // These two may have SIGTERM blocked (inherited from the spawning thread): no grace.
    await swiftIdle.stop(grace: .zero)
    await sleeper.stop(grace: .zero)

    let deltas = pids.indices.map { after[$0].since(before[$0]) }
    let scale = 60 / options.idleWindow
    let perMinute = deltas.map { Double($0.voluntary + $0.nonvoluntary) * scale }
    let names = [
        "unotifyd, \(Format.size(options.idleRows)) pending", "unotifyd, empty store", "idle Swift process (control)",
        "sleep 3600 (baseline)",
    ]
    let window = options.idleWindow == 60 ? "60 s" : "\(Format.number(options.idleWindow)) s scaled to /min"
    say(
        "3. idle wake-ups (voluntary + nonvoluntary context switches over /proc/<pid>/task/*/status), window \(window); "
            + "idle after \(Format.number(settle.seconds)) s\(settle.idle ? "" : " (NOT quiet before the 60 s timeout)")"
    )
    say("   store: \(fill.summary)")
    for index in pids.indices {
        let delta = deltas[index]
        say(
            "   \(names[index].padding(toLength: 30, withPad: " ", startingAt: 0)) \(Format.number(perMinute[index], decimals: 1)) /min "
                + "(\(delta.voluntary)v + \(delta.nonvoluntary)nv in the window, \(threads[index]) threads)"
                + (delta.busiest.isEmpty ? "" : ": " + delta.busiest.joined(separator: ", ")))
    }
    return [
        Figure(
            number: "3",
            measure:
                "idle wake-ups/min of spawned unotifyd, \(Format.size(options.idleRows)) pending (next fire ≥ 2 h), "
                + "context switches summed over all threads, \(window)",
            result:
                "\(Format.number(perMinute[0], decimals: 1)) /min (empty store \(Format.number(perMinute[1], decimals: 1)), "
                + "idle Swift process \(Format.number(perMinute[2], decimals: 1)))",
            baseline: "sleep 3600, same window: \(Format.number(perMinute[3], decimals: 1)) /min",
            ratio: perMinute[3] > 0
                ? Format.ratio(perMinute[0], perMinute[3])
                : "n/a (baseline 0; +\(Format.number(perMinute[0], decimals: 1)) /min)")
    ]
}

// MARK: - Figure 4

/// Figure 4: VmRSS of an idle spawned `unotifyd` over a store with many pending requests (filled beforehand with
/// the store API) against one over an empty store, each measured once idle and again after a status query (which
/// counts the pending requests per app: a full scan).
func figureMemory(
    _ options: Options, folder: TemporaryFolder, binary: String, storePath: String, fill: StoreFiller.Report
) async throws -> [Figure] {
    struct Reading {
        var listenSeconds: Double
        var idleRSS: Int
        var statusRSS: Int
        var peak: Int
        var threads: Int
        var pending: Int
        var adds: Percentiles
    }
    var readings: [Reading] = []
    for (name, path) in [("memory-empty", folder.file("memory-empty/store.sqlite")), ("memory-full", storePath)] {
        progress(
            "4: starting unotifyd over \(name == "memory-empty" ? "an empty store" : "\(Format.size(options.memoryRows)) pending")"
        )
        let (daemon, listen) = try await timedAsync {
            try await SpawnedDaemon(binary: binary, folder: folder, name: name, storePath: path)
        }
        _ = await waitUntilIdle([daemon.pid], quiet: options.quick ? 2 : 3, timeout: .seconds(60))
        let idleRSS = ProcFS.kibibytes("VmRSS", pid: daemon.pid) ?? 0
        let threads = ProcFS.threadCount(pid: daemon.pid)
        let status = try await daemonStatus(daemon)
        _ = await waitUntilIdle([daemon.pid], quiet: 2, timeout: .seconds(30))
        let statusRSS = ProcFS.kibibytes("VmRSS", pid: daemon.pid) ?? 0
        let peak = ProcFS.kibibytes("VmHWM", pid: daemon.pid) ?? 0
        // Then a few adds, to see whether a big store slows the add path (each add wakes the delivery loop).
        let client = DaemonBackend(socketPath: daemon.socketPath)
        try await client.add(Workload.addSpec("probe-warm", 0), appID: "bench.probe")
        var samples: [Double] = []
        let probeDeadline = ContinuousClock.now + .seconds(20)
        while samples.count < options.probeAdds, ContinuousClock.now < probeDeadline {
            let start = ContinuousClock.now
            try await client.add(Workload.addSpec("probe-\(samples.count)", samples.count), appID: "bench.probe")
            samples.append(start.duration(to: .now).seconds)
        }
        await client.connection(for: "bench.probe").close()
        await daemon.stop()
        readings.append(
            Reading(
                listenSeconds: listen, idleRSS: idleRSS, statusRSS: statusRSS, peak: peak, threads: threads,
                pending: status.pendingCount, adds: Percentiles(samples)))
    }
    let (empty, full) = (readings[0], readings[1])
    guard full.pending == options.memoryRows else {
        throw BenchError("the daemon reports \(full.pending) pending, expected \(options.memoryRows)")
    }
    say("4. resident memory of an idle spawned unotifyd (VmRSS of /proc/<pid>/status)")
    say("   store: \(fill.summary); floating calendar triggers (\(options.combinations) plans) over 100 apps")
    for (label, reading) in [("empty store", empty), ("\(Format.size(options.memoryRows)) pending", full)] {
        say(
            "   \(label.padding(toLength: 14, withPad: " ", startingAt: 0)) idle \(Format.mebibytes(kib: reading.idleRSS)), "
                + "after a status query \(Format.mebibytes(kib: reading.statusRSS)), peak \(Format.mebibytes(kib: reading.peak)), "
                + "\(reading.threads) threads, listening \(Format.duration(reading.listenSeconds)) after spawn; "
                + "then \(reading.adds.count) sequential adds (time-interval, another app): "
                + "p50 \(Format.duration(reading.adds.p50)), p99 \(Format.duration(reading.adds.p99))")
    }
    return [
        Figure(
            number: "4",
            measure: "VmRSS of idle spawned unotifyd, \(Format.size(options.memoryRows)) pending "
                + "(store filled via SQLiteNotificationStore.insertPending before start)",
            result:
                "\(Format.mebibytes(kib: full.idleRSS)) (after status query \(Format.mebibytes(kib: full.statusRSS)))",
            baseline:
                "empty store: \(Format.mebibytes(kib: empty.idleRSS)) (after status \(Format.mebibytes(kib: empty.statusRSS)))",
            ratio: Format.ratio(Double(full.idleRSS), Double(empty.idleRSS))),
        Figure(
            number: "4 add",
            measure: "add round trip p50 / p99 through that daemon with \(Format.size(options.memoryRows)) pending "
                + "(\(full.adds.count) sequential, at most 20 s, after the RSS reading)",
            result: "\(Format.duration(full.adds.p50)) / \(Format.duration(full.adds.p99))",
            baseline: "empty store: \(Format.duration(empty.adds.p50)) / \(Format.duration(empty.adds.p99))",
            ratio: "\(Format.ratio(full.adds.p50, empty.adds.p50)) / \(Format.ratio(full.adds.p99, empty.adds.p99))"),
    ]
}
