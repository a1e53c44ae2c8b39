import Foundation
import TestPrograms
import Testing

/// `unotify-server-bench` refuses bad sizes before it starts anything (no PostgreSQL server, no endpoint): a usage
/// error (exit 64) that names the option. The bench itself is run by hand (docs/benchmarks.md); this only keeps its
/// command line honest.
@Suite("unotify-server-bench arguments", .timeLimit(.minutes(5)))
struct ServerBenchArgumentTests {
    /// The built `unotify-server-bench`, beside the test bundle or in .build/debug.
    func bench() throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("unotify-server-bench")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        let debug = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/unotify-server-bench")
        try #require(FileManager.default.isExecutableFile(atPath: debug.path), "build unotify-server-bench first")
        return debug.path
    }

    @Test(
        "bad sizes are refused with a usage error naming the option",
        arguments: [
            (["--only", "5"], "--only"), (["--only", "1,x"], "--only"), (["--devices", "0"], "--devices"),
            (["--quick", "--burst", "-3"], "--burst"), (["--http-batch", "9000"], "--http-batch"),
            (["--zones", "100000"], "--zones"), (["--workers", "1,0"], "--workers"),
            (["--lateness-span", "0"], "--lateness-span"), (["--pushes", "10", "--streams", "100"], "--pushes"),
            (["--unknown"], "--unknown"),
        ])
    func refused(arguments: [String], option: String) async throws {
        let result = try await runProgram(try bench(), arguments, timeout: 120)
        #expect(result.status == 64, "\(arguments): exit \(result.status), \(result.stderr)")
        #expect(result.stderr.contains(option), "\(arguments): \(result.stderr)")
        #expect(!result.stdout.contains("postgres:"), "\(arguments) started the bench: \(result.stdout)")
    }

    @Test("--help lists the four figures and the options")
    func help() async throws {
        let result = try await runProgram(try bench(), ["--help"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        for word in [
            "--quick", "--only", "--requests", "--burst", "--pending", "--pushes", "--fsync", "request-batches",
        ] {
            #expect(result.stdout.contains(word), "--help does not mention \(word)")
        }
    }
}
