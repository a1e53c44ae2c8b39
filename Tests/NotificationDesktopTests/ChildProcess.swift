import Foundation

#if os(Linux)
import Glibc
#else
#error("NotificationDesktopTests: unsupported operating system")
#endif

/// A long-running child (Xvfb, dbus-daemon) spawned with a clean signal mask and default signal actions.
///
/// Not `Foundation.Process`: it spawns with the calling thread's signal mask, and test code runs on dispatch worker
/// threads that block nearly every signal, so its children (and what they start, such as the dunst a bus
/// activates) ignore `SIGTERM` for good.
final class ChildProcess {
    let pid: pid_t
    /// The reading end of the child's standard output.
    let output: Int32
    private var exited = false

    /// Spawns `executable` with `arguments` and exactly `environment`; standard output goes to a pipe (``output``),
    /// standard error to `log`.
    init(_ executable: URL, _ arguments: [String], environment: [String: String], log: URL) throws {
        var pipeDescriptors: [Int32] = [-1, -1]
        guard pipe(&pipeDescriptors) == 0 else { throw FixtureError("pipe failed: errno \(errno)") }
        for descriptor in pipeDescriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let logDescriptor = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            close(pipeDescriptors[1])
            if logDescriptor >= 0 { close(logDescriptor) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeDescriptors[1], 1)
        if logDescriptor >= 0 { posix_spawn_file_actions_adddup2(&actions, logDescriptor, 2) }
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
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable.path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(pipeDescriptors[0])
            throw FixtureError("cannot start \(executable.path): error \(status)")
        }
        pid = child
        output = pipeDescriptors[0]
    }

    /// Sends `SIGTERM` and waits for the exit (`SIGKILL` after five seconds).
    func stop() async {
        defer { close(output) }
        guard !exited else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        exited = true
    }

    /// The first line the child writes to standard output, waiting at most `timeout`.
    func firstLine(within timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var bytes: [UInt8] = []
        while !bytes.contains(UInt8(ascii: "\n")) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw FixtureError("no line within \(timeout)") }
            var descriptors = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&descriptors, 1, milliseconds) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(output, &buffer, buffer.count)
            guard count > 0 else { throw FixtureError("the child closed its output before a line") }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
