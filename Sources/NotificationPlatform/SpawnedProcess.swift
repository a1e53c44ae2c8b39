import Dispatch
import Foundation
import Synchronization

#if os(Linux)
import CNotificationPlatform
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("SpawnedProcess: unsupported operating system")
#endif

/// A child process started with `posix_spawn`, with an empty signal mask and default signal actions.
///
/// Not `Foundation.Process`: that spawns with the calling thread's signal mask, and the daemon blocks `SIGTERM` (test
/// code runs on threads that block nearly every signal), which a child must not inherit: it would ignore `SIGTERM`
/// for good, and so would what it starts. Standard input is `/dev/null` or a pipe this process writes into;
/// standard output and standard error each go where a ``Destination`` says. No other descriptor of this process
/// reaches the child (on Linux), so it never holds one of our listening sockets.
///
/// Waiting never blocks Swift's cooperative thread pool: a dedicated `Thread` sits in `waitid`, and the awaiting task
/// resumes through a continuation. A child dropped before it was reaped is killed (`SIGKILL`) and reaped, so none is
/// ever left behind.
///
/// ```swift
/// let child = try SpawnedProcess(executable: "/usr/bin/paplay", arguments: [file], environment: environment)
/// let exit = await child.waitForExit(timeout: .seconds(10))
/// if !exit.succeeded { print("paplay \(exit.summary): \(exit.errorOutput)") }
/// ```
public final class SpawnedProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Destination: Sendable, Hashable {
        /// Into an unlinked temporary file, read into ``Exit`` after the exit (its first 64 KiB), so a chatty child
        /// can never block on a full pipe.
        case capture
        /// Into a file, created or truncated. Standard output and standard error naming the same file share one
        /// descriptor, as `>log 2>&1` does.
        case file(String)
        /// Into a pipe read while the child runs, through ``firstLine(within:)`` or ``outputPipe``. Standard output
        /// only.
        case pipe
        /// Where this process's own stream goes.
        case inherit
    }

    /// How the child ended.
    public struct Exit: Sendable {
        /// The exit status when it exited normally.
        public var status: Int32?
        /// The signal that ended it, if any.
        public var signal: Int32?
        /// Whether it was killed because the timeout passed.
        public var timedOut: Bool
        /// The first 64 KiB of standard output when it was captured; empty otherwise.
        public var output: String
        /// The first 64 KiB of standard error when it was captured; empty otherwise.
        public var errorOutput: String

        /// Whether it exited with status 0 before its timeout.
        public var succeeded: Bool { status == 0 && !timedOut }

        /// For example `exited with status 1` or `was killed by signal 9`.
        public var summary: String {
            if timedOut { return "was killed after its timeout" }
            if let status { return "exited with status \(status)" }
            if let signal { return "was killed by signal \(signal)" }
            return "ended in an unknown way (already reaped)"
        }
    }

    /// Why a child could not be started or read.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    private struct State {
        var reaped = false
        var timedOut = false
    }

    /// The child's process id.
    public let pid: pid_t
    /// The program's path, for messages.
    public let executable: String
    /// The captured standard output, or the reading end of its pipe; -1 otherwise.
    private let outputDescriptor: Int32
    private let outputIsPipe: Bool
    /// The captured standard error; -1 otherwise.
    private let errorDescriptor: Int32
    /// The writing end of the child's standard input when it is a pipe; -1 once closed or otherwise.
    private let inputDescriptor: Mutex<Int32>
    private let state = Mutex(State())

    /// Starts `executable` with `arguments` and exactly `environment`.
    ///
    /// - Parameters:
    ///   - executable: The program's full path (see ``executable(named:)``).
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The child's whole environment.
    ///   - standardInputPipe: Whether standard input is a pipe this process writes into (``writeInput(_:)``)
    ///     instead of `/dev/null`.
    ///   - standardOutput: Where standard output goes; captured by default.
    ///   - standardError: Where standard error goes; captured by default. Not ``Destination/pipe``.
    /// - Throws: ``Failure`` when a file or pipe cannot be made or the program cannot be started.
    public init(
        executable: String, arguments: [String], environment: [String: String], standardInputPipe: Bool = false,
        standardOutput: Destination = .capture, standardError: Destination = .capture
    ) throws(Failure) {
        self.executable = executable
        guard standardError != .pipe else { throw Failure(description: "standard error cannot go to a pipe") }
        var opened: [Int32] = []
        func closeOpened() { for descriptor in opened { close(descriptor) } }
        func descriptor(for destination: Destination) throws(Failure) -> (read: Int32, write: Int32) {
            switch destination {
            case .file, .inherit: return (-1, -1)
            case .capture:
                let file = Self.anonymousFile()
                guard file >= 0 else { throw Failure(description: "cannot create a temporary file: errno \(errno)") }
                opened.append(file)
                return (file, file)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw Failure(description: "cannot create a pipe: errno \(errno)") }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                opened += ends
                return (ends[0], ends[1])
            }
        }
        let outputEnds: (read: Int32, write: Int32)
        let errorEnds: (read: Int32, write: Int32)
        let inputEnds: (read: Int32, write: Int32)
        do {
            outputEnds = try descriptor(for: standardOutput)
            errorEnds = try descriptor(for: standardError)
            inputEnds = standardInputPipe ? try descriptor(for: .pipe) : (-1, -1)
        } catch {
            closeOpened()
            throw error
        }

        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #elseif os(macOS)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        #error("SpawnedProcess: unsupported operating system")
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if standardInputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputEnds.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        switch standardOutput {
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .inherit: break
        case .capture, .pipe: posix_spawn_file_actions_adddup2(&actions, outputEnds.write, 1)
        }
        switch standardError {
        case .file where standardOutput == standardError: posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .inherit: break
        case .capture, .pipe: posix_spawn_file_actions_adddup2(&actions, errorEnds.write, 2)
        }
        #if os(Linux)
        // Nothing else of this process reaches the child: no listening socket outlives us in it.
        CNPSpawnActionsCloseFrom(&actions, 3)
        #endif
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
            closeOpened()
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        // Only the child writes into a pipe, so that its reader sees the end when the child ends; only we write into
        // its input.
        if standardOutput == .pipe { close(outputEnds.write) }
        if standardInputPipe { close(inputEnds.read) }
        inputDescriptor = Mutex(inputEnds.write)
        pid = child
        outputDescriptor = outputEnds.read
        outputIsPipe = standardOutput == .pipe
        errorDescriptor = errorEnds.read
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
        if errorDescriptor >= 0 { close(errorDescriptor) }
        if outputDescriptor >= 0 { close(outputDescriptor) }
        closeInput()
    }

    /// Writes to the child's standard input pipe.
    /// - Returns: Whether all of `data` was written (`false` when the input is not a pipe, was closed, or the child
    ///   closed its end; `SIGPIPE` must be ignored in this process for the last case).
    @discardableResult
    public func writeInput(_ data: Data) -> Bool {
        inputDescriptor.withLock { descriptor in
            guard descriptor >= 0 else { return false }
            var written = 0
            while written < data.count {
                let count = data.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, data.count - written) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
    }

    /// Closes the child's standard input pipe: it reads the end of file.
    public func closeInput() {
        inputDescriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    /// The reading end of a standard output that goes to a ``Destination/pipe``, for a reader of its own (it stays
    /// open as long as this object); `nil` otherwise.
    public var outputPipe: FileHandle? {
        outputIsPipe ? FileHandle(fileDescriptor: outputDescriptor, closeOnDealloc: false) : nil
    }

    /// Sends `signal` unless the child has already been reaped (so a recycled pid is never hit).
    public func send(_ signal: Int32) {
        state.withLock { state in
            guard !state.reaped else { return }
            kill(pid, signal)
        }
    }

    /// Waits for the child to end, killing it with `SIGKILL` once `timeout` has passed (or the task is cancelled).
    ///
    /// - Parameter timeout: How long the child may run from now; `nil` waits as long as it runs.
    /// - Returns: How it ended, with what was captured.
    public func waitForExit(timeout: Duration?) async -> Exit {
        if state.withLock({ $0.reaped }) { return reapedExit() }
        return await withTaskCancellationHandler {
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
                waiter.name = "SpawnedProcess waitpid \(pid)"
                waiter.start()
            }
        } onCancel: {
            send(SIGKILL)
        }
    }

    /// Ends the child: sends `signal`, then `SIGKILL` if it still runs after `grace`, and waits until it is reaped.
    ///
    /// ```swift
    /// await bus.stop()                    // SIGTERM, SIGKILL after 5 s
    /// await geoclue.stop(signal: SIGKILL)
    /// ```
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(5)) async -> Exit {
        send(signal)
        return await waitForExit(timeout: grace)
    }

    /// The first line the child writes to a standard output that goes to a ``Destination/pipe``, without its line
    /// end, waiting at most `timeout` (a bound for a child that never answers, not a delay). Blocks the calling
    /// thread.
    ///
    /// - Throws: ``Failure`` when no line comes in time, the child closes its output first, or the output is not a
    ///   pipe.
    public func firstLine(within timeout: Duration) throws(Failure) -> String {
        guard outputIsPipe else { throw Failure(description: "the standard output of \(executable) is not a pipe") }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var bytes: [UInt8] = []
        while !bytes.contains(UInt8(ascii: "\n")) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw Failure(description: "no line from \(executable) within \(timeout)") }
            var descriptors = [pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&descriptors, 1, milliseconds) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(outputDescriptor, &buffer, buffer.count)
            guard count > 0 else { throw Failure(description: "\(executable) closed its output before a line") }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    /// The full path of the program `name` in the folders of `searchPath` (then `/usr/bin` and `/bin`), or `nil`.
    ///
    /// ```swift
    /// guard let bus = SpawnedProcess.executable(named: "dbus-daemon") else { return }
    /// ```
    public static func executable(
        named name: String, searchPath: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    ) -> String? {
        (searchPath.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)", "/bin/\(name)"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Blocks the calling (dedicated) thread until the child ends, then reaps it.
    private func blockingWait() -> Exit {
        // Wait without reaping first, so the timeout's kill can never reach a recycled pid.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        let (raw, timedOut) = state.withLock { state -> (Int32?, Bool) in
            guard !state.reaped else { return (nil, state.timedOut) }
            var status: Int32 = 0
            var result: pid_t = -1
            repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
            state.reaped = true
            return (result == pid ? status : nil, state.timedOut)
        }
        var exit = reapedExit()
        exit.timedOut = timedOut
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

    /// What is known after the child was reaped: the captured output, no status.
    private func reapedExit() -> Exit {
        Exit(
            status: nil, signal: nil, timedOut: state.withLock { $0.timedOut },
            output: outputIsPipe ? "" : Self.contents(of: outputDescriptor),
            errorOutput: Self.contents(of: errorDescriptor))
    }

    /// An unlinked temporary file open for reading and writing, or -1.
    private static func anonymousFile() -> Int32 {
        var template = Array((NSTemporaryDirectory() + "/spawned-process-XXXXXX").utf8CString)
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
