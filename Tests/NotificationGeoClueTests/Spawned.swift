import Foundation
import Synchronization

#if os(Linux)
import Glibc
#else
#error("NotificationGeoClueTests: unsupported operating system")
#endif

/// A test failure in the fixtures (a program that does not start, a bus that does not answer).
struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process (dbus-daemon, geoclue, the demo agent) spawned with a clean signal mask and default signal
/// actions (test code runs on threads that block most signals), its output going to a log file.
final class Spawned: Sendable {
    let pid: pid_t
    let name: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], log: URL) throws {
        name = (executable as NSString).lastPathComponent
        let logDescriptor = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { if logDescriptor >= 0 { close(logDescriptor) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if logDescriptor >= 0 {
            posix_spawn_file_actions_adddup2(&actions, logDescriptor, 1)
            posix_spawn_file_actions_adddup2(&actions, logDescriptor, 2)
        }
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
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw FixtureError("cannot start \(executable): error \(status)") }
        pid = child
    }

    /// Sends `SIGKILL` and reaps the child on a thread of its own (never on the cooperative pool).
    func kill() async {
        _ = Glibc.kill(pid, SIGKILL)
        let pid = self.pid
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                _ = waitpid(pid, &status, 0)
                continuation.resume()
            }
        }
    }

    /// The full path of `name` on `PATH`, or `nil`.
    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)", "/bin/\(name)"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A Unix-socket server that sends NMEA sentences to every client, every 300 ms, on a thread of its own, as a GPS
/// daemon would: GeoClue's `network-nmea` source (`--nmea-socket`) connects to it.
final class NMEAServer: Sendable {
    let path: String
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let finished = Atomic<Bool>(false)

    /// Listens at `path` and starts serving `sentences` (without the line ends) on a thread.
    init(path: String, sentences: [String]) throws {
        self.path = path
        unlink(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw FixtureError("socket failed: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw FixtureError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw FixtureError("cannot listen at \(path): errno \(errno)")
        }
        listener = descriptor
        let payload = Array(sentences.map { $0 + "\r\n" }.joined().utf8)
        Thread.detachNewThread { [self] in serve(payload) }
    }

    /// Blocking accept/poll/write loop; runs on its own thread.
    private func serve(_ payload: [UInt8]) {
        var clients: [Int32] = []
        var nextSend = ContinuousClock.now
        while !stopped.load(ordering: .acquiring) {
            var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            if poll(&descriptors, 1, 100) > 0 {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    clients.append(client)
                }
            }
            guard ContinuousClock.now >= nextSend else { continue }
            nextSend = ContinuousClock.now.advanced(by: .milliseconds(300))
            clients.removeAll { client in
                let written = payload.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written < 0 { close(client) }
                return written < 0
            }
        }
        for client in clients { close(client) }
        close(listener)
        unlink(path)
        finished.store(true, ordering: .releasing)
        done.withLock { $0?.resume() }
    }

    /// Stops serving and waits until the thread has closed its sockets.
    func stop() async {
        stopped.store(true, ordering: .releasing)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = done.withLock { waiting -> Bool in
                if finished.load(ordering: .acquiring) { return true }
                waiting = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// A `$GPGGA` sentence with its checksum, for a fix at `latitude`, `longitude` (degrees) at `time` (`hhmmss`).
    static func gga(latitude: Double, longitude: Double, time: String) -> String {
        func field(_ degrees: Double, width: Int) -> String {
            let whole = Int(abs(degrees))
            let minutes = (abs(degrees) - Double(whole)) * 60
            return String(format: "%0\(width)d%06.3f", whole, minutes)
        }
        let body =
            "GPGGA,\(time),\(field(latitude, width: 2)),\(latitude >= 0 ? "N" : "S"),"
            + "\(field(longitude, width: 3)),\(longitude >= 0 ? "E" : "W"),1,08,0.9,35.0,M,46.9,M,,"
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + String(format: "%02X", checksum)
    }
}
