import BenchSupport
import Foundation
import NotificationEngine

/// `unotifyd-bench`: the daemon's figures, each against a baseline measured in the same run.
@main
enum UnotifydBench {
    static func main() async {
        if CommandLine.arguments.dropFirst().first == IdleChild.flag {
            await IdleChild.run()
            return
        }
        do {
            try await run(Options.parse(Array(CommandLine.arguments.dropFirst())))
        } catch {
            FileHandle.standardError.write(Data("unotifyd-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) async throws {
        let binary = try options.unotifydBinary()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let filler = StoreFiller(useTmpfs: options.tmpfsStaging)
        let started = ContinuousClock.now
        say("unotifyd-bench \(options.quick ? "--quick" : "(full sizes)") — \(ProcFS.machine)")
        say(
            "load average at start: \(ProcFS.loadAverage); stores in \(folder.path) (\(ProcFS.fileSystem(of: folder.path))); "
                + "spawned daemon: \(binary)")
        say()
        var figures: [Figure] = []
        if options.only.contains(1) {
            figures += try await figureAddRoundTrip(options, folder: folder, binary: binary)
            progress("figure 1 done at \(Format.duration(started.duration(to: .now).seconds))")
            say()
        }
        if options.only.contains(2) {
            figures += try await figureConcurrentAdds(options, folder: folder, binary: binary)
            progress("figure 2 done at \(Format.duration(started.duration(to: .now).seconds))")
            say()
        }
        if options.only.contains(3) {
            figures += try await figureIdleWakeups(options, folder: folder, binary: binary, filler: filler)
            progress("figure 3 done at \(Format.duration(started.duration(to: .now).seconds))")
            say()
        }
        if options.only.contains(4) || options.only.contains(5) {
            // One fill of floating calendar requests serves both figures when they have the same size.
            let zone = SystemNotificationClock().timeZone
            let calendar = SystemNotificationClock().calendar
            let workload = CalendarWorkload(
                combinations: options.combinations, apps: 100, spread: false, calendar: calendar)
            let memoryPath = folder.file("memory-full/store.sqlite")
            let replanPath = folder.file("replan/store.sqlite")
            var memoryFill: StoreFiller.Report?
            var replanFill: StoreFiller.Report?
            if options.only.isSuperset(of: [4, 5]), options.memoryRows == options.replanRows {
                let report = try await filler.fill(
                    into: [memoryPath, replanPath], rows: options.memoryRows, label: "4+5: filling"
                ) {
                    workload.request($0)
                }
                progress("4+5: \(report.summary)")
                (memoryFill, replanFill) = (report, report)
            } else {
                if options.only.contains(4) {
                    memoryFill = try await filler.fill(into: [memoryPath], rows: options.memoryRows, label: "4: filling") {
                        workload.request($0)
                    }
                }
                if options.only.contains(5) {
                    replanFill = try await filler.fill(into: [replanPath], rows: options.replanRows, label: "5: filling") {
                        workload.request($0)
                    }
                }
            }
            if let memoryFill {
                figures += try await figureMemory(
                    options, folder: folder, binary: binary, storePath: memoryPath, fill: memoryFill)
                try? FileManager.default.removeItem(atPath: memoryPath)
                progress("figure 4 done at \(Format.duration(started.duration(to: .now).seconds))")
                say()
            }
            if let replanFill {
                let main = try await measureReplan(
                    rows: options.replanRows, storePath: replanPath, workload: workload, zone: zone, label: "5",
                    target: 0.1)
                try? FileManager.default.removeItem(atPath: replanPath)
                var spread: (ReplanMeasurement, StoreFiller.Report)?
                if options.spreadApps > 0 {
                    let spreadWorkload = CalendarWorkload(
                        combinations: options.combinations, apps: options.spreadApps, spread: true, calendar: calendar)
                    let spreadPath = folder.file("replan-spread/store.sqlite")
                    let fill = try await filler.fill(into: [spreadPath], rows: options.spreadRows, label: "5b: filling") {
                        spreadWorkload.request($0)
                    }
                    spread = (
                        try await measureReplan(
                            rows: options.spreadRows, storePath: spreadPath, workload: spreadWorkload, zone: zone,
                            label: "5b", target: 0.3),
                        fill
                    )
                }
                figures += figureReplan(main, mainFill: replanFill, spread: spread)
                say()
            }
        }
        if options.only.contains(6) {
            figures += figureStalls(try await measureStalls(options: options, folder: folder))
            progress("figure 6 done at \(Format.duration(started.duration(to: .now).seconds))")
            say()
        }
        var table = Table(["#", "Measure", "Result", "Baseline (same run)", "Ratio"])
        for figure in figures {
            table.add([figure.number, figure.measure, figure.result, figure.baseline, figure.ratio])
        }
        say(
            "Figures (\(options.quick ? "--quick sizes" : "full sizes"), \(Format.duration(started.duration(to: .now).seconds)) in all; "
                + "load average at end: \(ProcFS.loadAverage))")
        say(table.render())
    }
}

/// `unotifyd-bench --idle-child`: a Swift process that starts Dispatch's worker pool and then sleeps in
/// `Task.sleep`, the control for figure 3 (what any idle Swift program on Linux costs, with no daemon code).
enum IdleChild {
    static let flag = "--idle-child"

    static func run() async {
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
        try? await Task.sleep(for: .seconds(3_600))
    }

    /// This executable, to spawn with ``flag``.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
