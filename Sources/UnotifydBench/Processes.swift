import Foundation
import NotificationClient

#if canImport(Glibc)
    import Glibc
#endif

/// A child process this bench started; only ever signalled by its own pid.
final class Child: @unchecked Sendable {  // `process` is only read after `run()`, its methods are thread-safe
    let process: Process
    let label: String
    let logPath: String?

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Starts `executable` with `arguments`, its output going to `logPath` (or nowhere).
    init(_ executable: String, _ arguments: [String], label: String, logPath: String?) throws {
        self.label = label
        self.logPath = logPath
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let logPath {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// SIGTERM, then SIGKILL after `grace`; returns once the process is gone.
    ///
    /// A child started from a Swift task inherits that thread's blocked signals (Foundation's `Process` does not
    /// reset the mask), SIGTERM included, so a plain program such as `sleep` only ends with SIGKILL.
    func stop(grace: Duration = .seconds(10)) async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(pid, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }

    var logTail: String {
        guard let logPath, let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return "" }
        return text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }
}

/// A spawned `unotifyd` on its own socket and store.
final class SpawnedDaemon: Sendable {
    let child: Child
    let socketPath: String
    let storePath: String

    var pid: Int32 { child.pid }

    /// Starts the binary and returns once its socket accepts connections.
    init(binary: String, folder: TemporaryFolder, name: String, storePath: String? = nil) async throws {
        socketPath = folder.file("\(name).sock")
        // In a folder of its own by default: the daemon watches its store's folder for writes.
        self.storePath = storePath ?? folder.file("\(name)/store.sqlite")
        child = try Child(
            binary,
            [
                "--socket", socketPath, "--store", self.storePath, "--pending-cap", "off", "--log-level", "warning",
                "--max-connections-per-peer", "1024",  // figure 2 opens one connection per client
                // Both APNs endpoints, as a default daemon serves them, on ports of their own: on the default ports
                // only the first daemon of a run got them (and their request log's 100 ms timer, session 13). The
                // web center stays off: its HTTP stack (Hummingbird's date cache) ticks once a second, and figure 3
                // measures the engine's wake-ups.
                "--apns-address", "127.0.0.1:0", "--apns-production-address", "127.0.0.1:0", "--web-address", "off",
            ], label: "unotifyd \(name)", logPath: folder.file("\(name).log"))
        let deadline = ContinuousClock.now + .seconds(60)
        while !DaemonBackend.isListening(at: socketPath) {
            guard child.isRunning else { throw BenchError("unotifyd \(name) exited at start:\n\(child.logTail)") }
            guard ContinuousClock.now < deadline else {
                await child.stop()
                throw BenchError("unotifyd \(name) did not listen within 60 s:\n\(child.logTail)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func stop() async { await child.stop() }
}

/// Waits until each process switched at most `threshold` times per second for `quiet` consecutive seconds.
/// - Returns: The seconds waited, and whether every process got there before `timeout`.
func waitUntilIdle(_ pids: [Int32], quiet: Int = 3, threshold: Int = 2, timeout: Duration = .seconds(60)) async
    -> (seconds: Double, idle: Bool)
{
    let start = ContinuousClock.now
    var quietRuns = [Int](repeating: 0, count: pids.count)
    var previous = pids.map { SwitchSample.take(pid: $0).total }
    while start.duration(to: .now) < timeout {
        try? await Task.sleep(for: .seconds(1))
        let current = pids.map { SwitchSample.take(pid: $0).total }
        for index in pids.indices {
            quietRuns[index] = current[index] - previous[index] <= threshold ? quietRuns[index] + 1 : 0
        }
        previous = current
        if quietRuns.allSatisfy({ $0 >= quiet }) { return (start.duration(to: .now).seconds, true) }
    }
    return (start.duration(to: .now).seconds, false)
}

/// The `sleep` binary, for the baseline of idle wake-ups.
func sleepBinary() throws -> String {
    for path in ["/usr/bin/sleep", "/bin/sleep"] where FileManager.default.isExecutableFile(atPath: path) {
        return path
    }
    throw BenchError("no sleep binary in /usr/bin or /bin")
}
