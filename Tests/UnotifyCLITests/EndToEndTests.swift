import Foundation
import Synchronization
import Testing
import TestPrograms

/// A built executable of the package (`unotify`, `unotifyd`), next to the test bundle.
func builtExecutable(_ name: String) throws -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    let debug = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)")
    try #require(FileManager.default.isExecutableFile(atPath: debug.path), "build \(name) first")
    return debug
}

/// A running `unotify` process whose output is collected as it arrives.
final class RunningCommand: Sendable {
    let process: TestProcess
    private let output = Collected()
    private let errors = Collected()

    /// Text collected from a pipe.
    final class Collected: Sendable {
        private let text = Mutex("")
        func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        var value: String { text.withLock { $0 } }
    }

    /// Starts `executable` (a product of the package, or an absolute path) with `environment` added to this
    /// process's, or alone when `inheritsEnvironment` is false.
    init(
        _ arguments: [String], environment: [String: String], executable: String = "unotify",
        inheritsEnvironment: Bool = true
    ) throws {
        process = TestProcess()
        process.executableURL =
            executable.hasPrefix("/") ? URL(fileURLWithPath: executable) : try builtExecutable(executable)
        process.arguments = arguments
        process.environment =
            inheritsEnvironment ? ProcessInfo.processInfo.environment.merging(environment) { $1 } : environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readToEnd { [output] data in output.append(data) }
        err.fileHandleForReading.readToEnd { [errors] data in errors.append(data) }
        try process.run()
    }

    var stdout: String { output.value }
    var stderr: String { errors.value }

    /// Waits (bounded) until the condition holds on the output; returns whether it did.
    func wait(upTo seconds: Double, for condition: (String, String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(stdout, stderr) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(stdout, stderr)
    }

    /// Ends the process with SIGKILL and waits for it. Tests use it rather than SIGTERM, which a child of a test
    /// process may have blocked.
    func kill9() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await waitForExit()
    }

    /// Waits for the process to end, off the concurrency pool.
    func waitForExit() async {
        let process = process
        await process.exited()
    }
}

/// Runs `unotify` to completion and returns its standard output.
func runToEnd(_ arguments: [String], environment: [String: String]) async throws -> String {
    let command = try RunningCommand(arguments, environment: environment)
    await command.waitForExit()
    _ = await command.wait(upTo: 1) { _, _ in false }
    #expect(command.process.terminationStatus == 0, "\(arguments): \(command.stderr)")
    return command.stdout
}

/// Real processes and real time: the few tests that wait for a wall clock.
@Suite("unotify end to end", .serialized)
struct EndToEndTests {
    @Test("`add --in 2s` then `watch` shows the notification on time (within 10 s on a loaded machine)")
    func addThenWatch() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        _ = try await runToEnd(["add", "--in", "2s", "--title", "Hi", "--id", "hi"], environment: environment)
        let watchStarted = Date()
        let watch = try RunningCommand(["watch", "--for", "20"], environment: environment)
        defer { Task { await watch.kill9() } }
        #expect(await watch.wait(upTo: 20) { out, _ in out.contains("│ Hi") })
        let history = try await runToEnd(["history", "--json"], environment: environment)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [[String: Any]])
        let lateness = try #require(entries.first?["lateness"] as? Double)
        // Real time on two cores shared with every other suite: a bound that catches a loop that polls or oversleeps
        // (seconds to a minute late), not scheduling jitter; exact timing is tested with the manual clock.
        // A `watch` that only started after the due date (a machine so loaded that the `add` process took long to
        // exit) cannot deliver before it started: that part of the lateness is not the engine's.
        let due = try #require((entries.first?["due"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        let beforeWatch = max(0, watchStarted.timeIntervalSince(due))
        #expect(lateness >= 0 && lateness - beforeWatch < 10, "delivered \(lateness) s late (\(beforeWatch) s before watch ran)")
    }

    @Test("pending requests survive kill -9 of the engine and fire after restart")
    func survivesKill9() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        let first = try RunningCommand(["watch"], environment: environment)
        #expect(await first.wait(upTo: 10) { _, err in err.contains("watching") })
        // Added while the first engine runs: it notices through the store, without polling.
        // Due far enough ahead that the first engine is killed before it fires, even on a loaded machine.
        _ = try await runToEnd(["add", "--in", "8s", "--title", "Persisted", "--id", "p"], environment: environment)
        _ = try await runToEnd(["add", "--in", "60s", "--repeats", "--title", "Nag", "--id", "nag"], environment: environment)
        await first.kill9()
        #expect(!first.stdout.contains("Persisted"))
        let second = try RunningCommand(["watch", "--for", "20"], environment: environment)
        defer { Task { await second.kill9() } }
        #expect(await second.wait(upTo: 20) { out, _ in out.contains("│ Persisted") })
        let pending = try await runToEnd(["list"], environment: environment)
        #expect(pending.contains("nag") && !pending.contains(" p "))
    }

    @Test("a running `watch` delivers a request another process adds")
    func watchSeesOtherProcesses() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        let watch = try RunningCommand(["watch", "--for", "10"], environment: environment)
        defer { Task { await watch.kill9() } }
        #expect(await watch.wait(upTo: 10) { _, err in err.contains("watching") })
        _ = try await runToEnd(["add", "--title", "Right away"], environment: environment)
        #expect(await watch.wait(upTo: 5) { out, _ in out.contains("│ Right away") })
    }

    @Test("the executable takes global options before the subcommand")
    func globalOptionsFirst() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_MODE": "embedded"]
        let app = "com.example.e2e"
        let added = try await runToEnd(["--store", store, "--app", app, "add", "--in", "1h", "--id", "first"], environment: environment)
        #expect(added.hasPrefix("first 20"))
        let listed = try await runToEnd(["--app", app, "list", "--store", store], environment: environment)
        #expect(listed.contains("  first  "))
    }

    @Test("bad input prints one line on stderr and exits non-zero")
    func badInputExitStatus() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let command = try RunningCommand(["add", "--in", "0"], environment: ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"])
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in !err.isEmpty }
        #expect(command.process.terminationStatus != 0)
        #expect(command.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("time interval must be greater than 0"))
    }
}
