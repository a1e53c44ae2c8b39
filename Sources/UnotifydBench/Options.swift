import Foundation

/// The command line: `--quick` for small sizes (under a minute), full sizes by default.
struct Options: Sendable {
    var quick = false
    /// Which figures to measure (1…6).
    var only: Set<Int> = [1, 2, 3, 4, 5, 6]
    /// The `unotifyd` binary to spawn; by default the one next to this executable.
    var unotifydPath: String?
    /// Stage store fills on tmpfs (`/dev/shm`) when there is one.
    var tmpfsStaging = true

    /// 1: sequential adds per series (embedded, in-process daemon, spawned daemon), interleaved in blocks.
    var adds = 10_000
    var addBlocks = 5
    /// 2: seconds per sustained-rate run, and how many single/eight rounds alternate.
    var rateSeconds = 8.0
    var rateRounds = 2
    var clients = 8
    /// 3: pending requests of the idle daemon, and the measured window.
    var idleRows = 100_000
    var idleWindow = 60.0
    /// 4: pending requests for the memory figure, and the sequential adds probing the daemon afterwards (at most
    /// 20 s of them).
    var memoryRows = 1_000_000
    var probeAdds = 300
    /// 5: floating calendar requests re-planned, and how many distinct hour/minute components they share.
    var replanRows = 1_000_000
    var combinations = 300
    /// 5b: the apps of the variant where every app has every components (one plan per app and components); 0 skips it.
    var spreadApps = 100

    /// 6: requests due over `stallSpan` seconds while re-plans (of 5b's spreadApps × combinations plans) and an import
    /// in batches of `stallImportBatch` run.
    var stallCount = 200
    var stallSpan = 20.0
    var stallImportBatch = 5_000
    /// 6: what keeps the store busy (`--stall-load replan,import`), and the engine's claim-ahead (its default if nil).
    var stallLoads: Set<String> = ["replan", "import"]
    var stallClaimAhead: Double?
    /// 6: a `SCHED_FIFO` priority for the engine's loop thread (`EngineConfiguration.loopRealtimePriority`), if any.
    var stallLoopPriority: Int32?
    /// 6: the loop thread's time slice in milliseconds (`EngineConfiguration.loopTimeSlice`; 0 for the kernel's
    /// default), or nil for the engine's default.
    var stallLoopSlice: Double?
    var stallReplanEvery = 1.0

    /// 5b's requests: every app × every components at least once, and a fifth of figure 5's.
    var spreadRows: Int { max(spreadApps * combinations, replanRows / 5) }

    static let usage = """
        usage: unotifyd-bench [--quick] [--only 1,2,3,4,5,6] [--unotifyd PATH] [--no-tmpfs-staging]
                              [--adds N] [--clients N] [--rate-seconds S] [--idle-rows N] [--idle-window S]
                              [--memory-rows N] [--replan-rows N] [--combinations N] [--spread-apps N]
                              [--stall-count N] [--stall-span S] [--stall-import-batch N]
                              [--stall-load replan,import] [--stall-claim-ahead S] [--stall-replan-every S]
                              [--stall-loop-fifo PRIORITY] [--stall-loop-slice MS]

          1  add round trip p50/p99 through the daemon vs embedded NotificationScheduler.add
          2  sustained adds/s with 8 (--clients N) concurrent clients, as many apps, vs one client
          3  idle wake-ups/min of a spawned unotifyd with pending requests vs `sleep`
          4  VmRSS of a spawned unotifyd with many pending requests vs an empty store
          5  re-planning after a zone change of floating calendar triggers vs Calendar.nextDate
             (5b: the same with every app holding every components: apps × components plans; --spread-apps 0 skips it)
          6  lateness of requests due while re-plans of spread-apps × combinations plans and an import keep the
             store busy, vs a bare sleep(until:) (issue 11: every one within 5 ms)

        Build: swift build -c release --scratch-path .build-dbench --product unotifyd-bench
               swift build -c release --scratch-path .build-dbench --product unotifyd
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        if arguments.contains("--quick") { options.applyQuickSizes() }
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(arguments[index - 1]) needs a value\n\(usage)") }
            return arguments[index]
        }
        func integer() throws -> Int {
            let text = try value()
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number > 0 else {
                throw BenchError("\(arguments[index - 1]) takes a positive integer (got \(text))")
            }
            return number
        }
        func seconds() throws -> Double {
            let text = try value()
            guard let number = Double(text), number > 0 else {
                throw BenchError("\(arguments[index - 1]) takes a positive number of seconds (got \(text))")
            }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--quick": break
            case "--only":
                let figures = try value().split(separator: ",").compactMap { Int($0) }
                guard !figures.isEmpty, figures.allSatisfy((1...6).contains) else {
                    throw BenchError("--only takes figure numbers 1…6, comma-separated")
                }
                options.only = Set(figures)
            case "--unotifyd": options.unotifydPath = try value()
            case "--no-tmpfs-staging": options.tmpfsStaging = false
            case "--adds": options.adds = try integer()
            case "--clients": options.clients = max(1, try integer())
            case "--rate-seconds": options.rateSeconds = try seconds()
            case "--idle-rows": options.idleRows = try integer()
            case "--idle-window": options.idleWindow = try seconds()
            case "--memory-rows": options.memoryRows = try integer()
            case "--replan-rows": options.replanRows = try integer()
            case "--combinations": options.combinations = try integer()
            case "--stall-count": options.stallCount = try integer()
            case "--stall-span": options.stallSpan = try seconds()
            case "--stall-import-batch": options.stallImportBatch = try integer()
            case "--stall-claim-ahead": options.stallClaimAhead = try seconds()
            case "--stall-loop-fifo": options.stallLoopPriority = Int32(try integer())
            case "--stall-loop-slice":
                let text = try value()
                guard let milliseconds = Double(text), milliseconds >= 0 else {
                    throw BenchError("--stall-loop-slice takes milliseconds, 0 for the kernel's default (got \(text))")
                }
                options.stallLoopSlice = milliseconds
            case "--stall-replan-every": options.stallReplanEvery = try seconds()
            case "--stall-load":
                let loads = Set(try value().split(separator: ",").map(String.init))
                guard !loads.isEmpty, loads.isSubset(of: ["replan", "import"]) else {
                    throw BenchError("--stall-load takes replan, import or both, comma-separated")
                }
                options.stallLoads = loads
            case "--spread-apps":
                let text = try value()
                guard let number = Int(text), number >= 0 else {
                    throw BenchError("--spread-apps takes a count (0 skips 5b)")
                }
                options.spreadApps = number
            case "--help", "-h":
                say(usage)
                exit(0)
            default: throw BenchError("unknown argument \(arguments[index])\n\(usage)")
            }
            index += 1
        }
        return options
    }

    private mutating func applyQuickSizes() {
        quick = true
        adds = 2_000
        addBlocks = 2
        rateSeconds = 1
        rateRounds = 1
        idleRows = 5_000
        idleWindow = 6
        memoryRows = 10_000
        probeAdds = 100
        replanRows = 10_000
        stallCount = 60
        stallSpan = 6
        spreadApps = 10
    }

    /// The `unotifyd` to spawn: `--unotifyd`, or the one built next to this executable.
    func unotifydBinary() throws -> String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path =
            unotifydPath
            ?? URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("unotifyd").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError(
                "no unotifyd at \(path): build it with `swift build -c release --scratch-path .build-dbench --product unotifyd` "
                    + "or pass --unotifyd PATH")
        }
        return path
    }
}
