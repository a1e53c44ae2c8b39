import ArgumentParser
import BenchSupport
import Foundation

/// `unotify-server-bench`: server mode's figures (issue 12) and the push endpoint's (issue 11, target 6) in a release
/// build, each beside a baseline measured in the same run, with the target beside each figure. It prints
/// figures and asserts nothing.
///
/// ```sh
/// swift build -c release --scratch-path .build-sbench --product unotify-server-bench
/// .build-sbench/release/unotify-server-bench --quick
/// .build-sbench/release/unotify-server-bench --only 1,3 --requests 200000
/// ```
@main
struct ServerBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unotify-server-bench",
        abstract: "Server mode's and the push endpoint's figures, each beside a baseline of the same run.",
        discussion: """
            Figures (--only picks some):
            1  schedule rate through the Swift API in batches (DeviceScheduler.schedule(_:)) and the HTTP API \
            (POST /v1/request-batches over TCP), against a raw INSERT ... SELECT of as many rows
            2  a burst due at one instant, delivered to our APNs endpoint answering after --answer-delay-ms, \
            by 1, 2 and 4 workers (--workers), against the first count
            3  lateness p50/p99 with --pending requests pending and 4 workers, against a bare sleep-until
            4  the push endpoint: durable pushes/s over one HTTP/2 connection with --streams streams, against the \
            same endpoint's trivial route

            PostgreSQL is a throwaway server of the bench's own (Debian's binaries, a Unix socket in /tmp), \
            removed at the end, on error and on SIGINT/SIGTERM; it runs with fsync off unless --fsync is given.
            """)

    @Flag(help: "Small sizes (about a minute or two in a release build); flags given beside it override them.")
    var quick = false

    @Option(help: "Which figures to measure, comma-separated (1-4).")
    var only: String = "1,2,3,4"

    @Option(help: "Devices registered (100,000; --quick 2,000).")
    var devices: Int?

    @Option(help: "Time zones the devices are spread over (400).")
    var zones: Int = 400

    @Option(help: "1: requests scheduled through each API (1,000,000; --quick 20,000).")
    var requests: Int?

    @Option(help: "1: requests per DeviceScheduler.schedule(_:) call.")
    var swiftBatch: Int = 10_000

    @Option(help: "1: requests per POST /v1/request-batches.")
    var httpBatch: Int = 1_000

    @Option(help: "2: requests due at one instant (100,000; --quick 2,000).")
    var burst: Int?

    @Option(help: "2: worker counts, comma-separated; the first is the baseline.")
    var workers: String = "1,2,4"

    @Option(help: "2: how long the APNs endpoint waits before each answer, in milliseconds.")
    var answerDelayMs: Int = 20

    @Option(help: "3: requests pending while the lateness is measured (1,000,000; --quick 50,000).")
    var pending: Int?

    @Option(help: "3: requests whose lateness is measured (300; --quick 100).")
    var latenessCount: Int?

    @Option(help: "3: seconds over which they fall due (15; --quick 5).")
    var latenessSpan: Double?

    @Option(help: "3: workers delivering them.")
    var latenessWorkers: Int = 4

    @Option(help: "4: pushes per route (20,000; --quick 4,000).")
    var pushes: Int?

    @Option(help: "4: concurrent streams on the one HTTP/2 connection.")
    var streams: Int = 100

    @Flag(help: "Run the throwaway PostgreSQL server with fsync, synchronous_commit and full_page_writes on.")
    var fsync = false

    mutating func validate() throws {
        _ = try sizes()
    }

    /// The sizes the flags and `--quick` give.
    func sizes() throws -> BenchSizes {
        func figures(_ text: String, _ name: String, range: ClosedRange<Int>) throws -> [Int] {
            let values = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !values.isEmpty else { throw ValidationError("\(name) needs at least one number") }
            return try values.map { value in
                guard let number = Int(value), range.contains(number) else {
                    throw ValidationError(
                        "\(name): \(value) is not a number in \(range.lowerBound)...\(range.upperBound)")
                }
                return number
            }
        }
        func positive(_ value: Int?, _ name: String, full: Int, quick small: Int) throws -> Int {
            let size = value ?? (quick ? small : full)
            guard size > 0 else { throw ValidationError("\(name) must be positive (got \(size))") }
            return size
        }
        let sizes = BenchSizes(
            only: Set(try figures(only, "--only", range: 1...4)),
            devices: try positive(devices, "--devices", full: 100_000, quick: 2_000),
            zones: zones,
            requests: try positive(requests, "--requests", full: 1_000_000, quick: 20_000),
            swiftBatch: try positive(swiftBatch, "--swift-batch", full: swiftBatch, quick: swiftBatch),
            httpBatch: try positive(httpBatch, "--http-batch", full: httpBatch, quick: httpBatch),
            burst: try positive(burst, "--burst", full: 100_000, quick: 2_000),
            workers: try figures(workers, "--workers", range: 1...64),
            answerDelay: .milliseconds(answerDelayMs),
            pending: try positive(pending, "--pending", full: 1_000_000, quick: 50_000),
            latenessCount: try positive(latenessCount, "--lateness-count", full: 300, quick: 100),
            latenessSpan: latenessSpan ?? (quick ? 5 : 15),
            latenessWorkers: try positive(
                latenessWorkers, "--lateness-workers", full: latenessWorkers, quick: latenessWorkers),
            pushes: try positive(pushes, "--pushes", full: 20_000, quick: 4_000),
            streams: try positive(streams, "--streams", full: streams, quick: streams),
            durable: fsync, quick: quick)
        let known = TimeZone.knownTimeZoneIdentifiers.count
        guard (1...known).contains(zones) else {
            throw ValidationError("--zones must be in 1...\(known), the zones this system knows (got \(zones))")
        }
        guard answerDelayMs >= 0 else { throw ValidationError("--answer-delay-ms cannot be negative") }
        guard sizes.latenessSpan > 0, sizes.latenessSpan <= 3_600 else {
            throw ValidationError("--lateness-span must be in (0, 3600] seconds")
        }
        guard sizes.httpBatch <= 5_000 else {
            throw ValidationError("--http-batch must be at most 5,000 (the API's limit per call)")
        }
        guard sizes.pushes >= sizes.streams else { throw ValidationError("--pushes must be at least --streams") }
        return sizes
    }

    func run() async throws {
        let sizes = try sizes()
        let bench = try await ServerBench(sizes: sizes)
        do {
            try await bench.run()
        } catch {
            await bench.stop()
            throw error
        }
        await bench.stop()
    }
}
