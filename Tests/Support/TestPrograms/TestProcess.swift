import CNotificationPlatform
import Foundation
import Synchronization

/// A child process for tests, started with `posix_spawn`: the part of `Foundation.Process` the tests use, under the
/// same names, so a test reads as it would with `Process`.
///
/// Why not `Process`: on Linux, `Process.run()` lists `/proc/self/fd` to close every other descriptor in the child,
/// and that listing crashed the test process (swift-corelibs-foundation#5472) when the whole suite had some 1,300
/// descriptors open, other threads opening and closing theirs meanwhile. Here the child closes them itself
/// (`posix_spawn_file_actions_addclosefrom_np`), and nothing is listed.
///
/// ```swift
/// let process = TestProcess()
/// process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
/// process.arguments = ["true"]
/// try process.run()
/// process.waitUntilExit()
/// #expect(process.terminationStatus == 0)
/// ```
///
/// Standard input, output and error are as with `Process`: `nil` inherits this process's, a `Pipe` connects the
/// child to it (the child's end is closed here once it runs, so the reader sees the end when the child ends), a
/// `FileHandle` is given to the child (`FileHandle.nullDevice` is `/dev/null`).
public final class TestProcess: @unchecked Sendable {
    /// Why the child ended, as `Process` says it.
    public typealias TerminationReason = Process.TerminationReason

    /// The program.
    public var executableURL: URL?
    /// Its arguments, without the program's name.
    public var arguments: [String]?
    /// Its whole environment; `nil` for this process's.
    public var environment: [String: String]?
    /// A `Pipe`, a `FileHandle` or `nil`.
    public var standardInput: Any?
    /// A `Pipe`, a `FileHandle` or `nil`.
    public var standardOutput: Any?
    /// A `Pipe`, a `FileHandle` or `nil`.
    public var standardError: Any?

    private struct State {
        var pid: pid_t = 0
        var status: Int32?
        /// Callers of ``exited()`` waiting for the child to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)

    public init() {}

    /// The child's process identifier, 0 before ``run()``.
    public var processIdentifier: Int32 { state.withLock { $0.pid } }

    /// Whether the child runs (started and not yet reaped).
    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.status == nil } }

    /// Starts the child.
    ///
    /// - Throws: `CocoaError(.fileNoSuchFile)` without an executable, `POSIXError` when it cannot be started.
    public func run() throws {
        guard let executableURL else { throw CocoaError(.fileNoSuchFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [FileHandle] = []
        for (target, destination, isInput) in [
            (Int32(0), standardInput, true), (1, standardOutput, false), (2, standardError, false),
        ] {
            switch destination {
            case let pipe as Pipe:
                let childEnd = isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                parentEnds.append(childEnd)
            case let handle as FileHandle where handle === FileHandle.nullDevice || handle.fileDescriptor < 0:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", isInput ? O_RDONLY : O_WRONLY, 0)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                break
            }
        }
        CNPSpawnActionsCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and every signal at its default, whatever this thread has.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let path = executableURL.path
        let argv = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        let variables = environment ?? ProcessInfo.processInfo.environment
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .ENOENT) }
        // Only the child holds its ends of the pipes now.
        for end in parentEnds { try? end.close() }
        let pid = child
        state.withLock { $0.pid = pid }
        // One thread per child waits for it, as Foundation's own monitoring does: no other caller races to reap.
        let thread = Thread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            let waiters = state.withLock { state in
                state.status = raw
                defer { state.waiters = [] }
                return state.waiters
            }
            ended.signal()
            for waiter in waiters { waiter.resume() }
        }
        thread.start()
    }

    /// Suspends until the child has ended (at once if it has), holding no thread meanwhile: the way for a test's
    /// async code to wait. ``waitUntilExit()`` blocks its thread, and a test blocked on one of the concurrency pool's
    /// threads (two on a two-core machine) starves every other test's tasks for as long as the child runs.
    public func exited() async {
        guard processIdentifier != 0 else { return }
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state in
                if state.status != nil { return true }
                state.waiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// Blocks until the child has ended (at once if it has). In async code, ``exited()``.
    public func waitUntilExit() {
        guard processIdentifier != 0 else { return }
        ended.wait()
        ended.signal()  // the next caller returns at once too
    }

    /// The exit status, or the signal that ended the child (as `Process` says it); -1 while it runs.
    public var terminationStatus: Int32 {
        guard let raw = state.withLock({ $0.status }) else { return -1 }
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
    }

    /// Whether the child exited or was ended by a signal.
    public var terminationReason: TerminationReason {
        guard let raw = state.withLock({ $0.status }) else { return .exit }
        return raw & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM.
    public func terminate() {
        let pid = processIdentifier
        if pid != 0 && isRunning { kill(pid, SIGTERM) }
    }
}

extension FileHandle {
    /// Reads the handle to its end on a thread of its own, handing each chunk to `onData` and then calling `onEnd`.
    ///
    /// Tests use this instead of `readabilityHandler`: on Linux that handler registers a dispatch read source, and
    /// tearing sources down while other threads register theirs can leave libdispatch's epoll bookkeeping pointing at
    /// freed memory (swift-corelibs-libdispatch#949, swift-corelibs-foundation#3276); the test process then died with
    /// SIGSEGV in `_dispatch_event_loop_drain`. A blocking `read` registers nothing.
    public func readToEnd(onData: @escaping @Sendable (Data) -> Void, onEnd: @escaping @Sendable () -> Void = {}) {
        let descriptor = fileDescriptor
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                onData(Data(buffer[0..<count]))
            }
            withExtendedLifetime(self) {}  // the descriptor stays open while it is read
            onEnd()
        }.start()
    }
}
