import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("NotificationSound: SpawnedProcess supports Linux only")
#endif

/// A child process started with `posix_spawn`, with an empty signal mask and default signal actions.
///
/// Not `Foundation.Process`: that spawns with the calling thread's signal mask, and the daemon using this module
/// blocks `SIGTERM`, which its children must not inherit. Standard input is `/dev/null`; standard output goes to a
/// caller's file or is captured, standard error is captured (both into unlinked temporary files, read after the exit,
/// so a chatty child can never block on a full pipe).
///
/// Waiting never blocks Swift's cooperative thread pool: a dedicated `Thread` sits in `waitid`, and the awaiting task
/// resumes through a continuation.
final class SpawnedProcess: Sendable {
    /// How the child ended.
    struct Exit: Sendable {
        /// The exit status when it exited normally.
        var status: Int32?
        /// The signal that ended it, if any.
        var signal: Int32?
        /// Whether it was killed because the timeout passed.
        var timedOut: Bool
        /// The first 64 KiB of standard output (empty when it went to a file).
        var output: String
        /// The first 64 KiB of standard error.
        var errorOutput: String

        var succeeded: Bool { status == 0 && !timedOut }

        /// For example `exited with status 1` or `was killed by signal 9`.
        var summary: String {
            if timedOut { return "was killed after its timeout" }
            if let status { return "exited with status \(status)" }
            if let signal { return "was killed by signal \(signal)" }
            return "ended in an unknown way (already reaped)"
        }
    }

    /// Why a child could not be started.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    private struct State {
        var reaped = false
        var timedOut = false
    }

    /// The child's process id.
    let pid: pid_t
    /// The program's path, for messages.
    let executable: String
    private let outputDescriptor: Int32
    private let errorDescriptor: Int32
    private let state = Mutex(State())

    /// Starts `executable` with `arguments` and exactly `environment`.
    ///
    /// - Parameter standardOutput: A file to write standard output to (created or truncated); captured when `nil`.
    init(
        executable: String, arguments: [String], environment: [String: String], standardOutput: String? = nil
    ) throws(Failure) {
        self.executable = executable
        let errorFile = Self.anonymousFile()
        let outputFile = standardOutput == nil ? Self.anonymousFile() : -1
        guard errorFile >= 0, standardOutput != nil || outputFile >= 0 else {
            if errorFile >= 0 { close(errorFile) }
            if outputFile >= 0 { close(outputFile) }
            throw Failure(description: "cannot create a temporary file: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let standardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outputFile, 1)
        }
        posix_spawn_file_actions_adddup2(&actions, errorFile, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(errorFile)
            if outputFile >= 0 { close(outputFile) }
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        outputDescriptor = outputFile
        errorDescriptor = errorFile
    }

    deinit {
        // Never leave a child behind: a process dropped unwaited is killed and reaped.
        state.withLock { state in
            guard !state.reaped else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            state.reaped = true
        }
        close(errorDescriptor)
        if outputDescriptor >= 0 { close(outputDescriptor) }
    }

    /// Sends `signal` unless the child has already been reaped (so a recycled pid is never hit).
    func send(_ signal: Int32) {
        state.withLock { state in
            guard !state.reaped else { return }
            kill(pid, signal)
        }
    }

    /// Waits for the child to end, killing it with `SIGKILL` once `timeout` has passed (or the task is cancelled).
    func waitForExit(timeout: Duration?) async -> Exit {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Exit, Never>) in
                if let timeout {
                    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                        state.withLock { state in
                            guard !state.reaped else { return }
                            state.timedOut = true
                            kill(pid, SIGKILL)
                        }
                    }
                }
                let waiter = Thread { [self] in
                    continuation.resume(returning: blockingWait())
                }
                waiter.name = "NotificationSound waitpid \(pid)"
                waiter.start()
            }
        } onCancel: {
            send(SIGKILL)
        }
    }

    /// Blocks the calling (dedicated) thread until the child ends, then reaps it.
    private func blockingWait() -> Exit {
        // Wait without reaping first, so the timeout's kill can never reach a recycled pid.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        let (raw, timedOut) = state.withLock { state -> (Int32?, Bool) in
            var status: Int32 = 0
            var result: pid_t = -1
            repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
            state.reaped = true
            return (result == pid ? status : nil, state.timedOut)
        }
        var exit = Exit(
            status: nil, signal: nil, timedOut: timedOut, output: Self.contents(of: outputDescriptor),
            errorOutput: Self.contents(of: errorDescriptor))
        if let raw {
            let low = raw & 0x7F
            if low == 0 {
                exit.status = (raw >> 8) & 0xFF
            } else if low != 0x7F {
                exit.signal = low
            }
        }
        return exit
    }

    /// An unlinked temporary file open for reading and writing, or -1.
    private static func anonymousFile() -> Int32 {
        var template = Array((NSTemporaryDirectory() + "/notification-sound-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        return descriptor
    }

    private static func contents(of descriptor: Int32) -> String {
        guard descriptor >= 0 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }
}
