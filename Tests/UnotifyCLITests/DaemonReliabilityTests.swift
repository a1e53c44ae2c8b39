import Foundation
import NotificationClient
import NotificationDaemon
import NotificationEngine
import NotificationLocation
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing
import TestPrograms

/// A `unotifyd` process on a private socket and store, restartable.
final class DaemonProcess: Sendable {
    let folder: URL
    let socket: String
    let store: String
    let extraArguments: [String]
    private let current = Mutex<RunningCommand?>(nil)

    init(storeFolder: URL? = nil, arguments: [String] = []) {
        folder = URL(fileURLWithPath: "/tmp/unotifyd-test-\(UUID().uuidString.prefix(8))")
        socket = folder.appendingPathComponent("run/d.sock").path
        store = (storeFolder ?? folder).appendingPathComponent("store.sqlite").path
        extraArguments = arguments
    }

    var environment: [String: String] { ["OPENUN_SOCKET": socket, "OPENUN_STORE": store] }

    /// Starts the daemon and waits (bounded) until it accepts connections.
    func start(environment extra: [String: String] = [:]) async throws {
        let command = try RunningCommand(
            // No APNs endpoint: every daemon would try 127.0.0.1:2197 and all but one log that it is taken. A hello
            // deadline of 2 minutes: in a full run the test process's two pool threads can be busy for more than the
            // default 10 s, and a client whose hello came late was dropped ("connection lost", session 12); the
            // deadline's own test passes its own.
            ["--log-level", "warning", "--apns-address", "off", "--web-address", "off", "--hello-deadline", "120"]
                + extraArguments,
            environment: environment.merging(extra) { $1 },
            executable: "unotifyd")
        current.withLock { $0 = command }
        let deadline = Date().addingTimeInterval(20)
        while !DaemonBackend.isListening(at: socket) {
            try #require(Date() < deadline, "unotifyd did not start: \(command.stderr)")
            try #require(command.process.isRunning, "unotifyd exited: \(command.stderr)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func kill9() async {
        await current.withLock { $0 }?.kill9()
    }

    var isRunning: Bool { current.withLock { $0 }?.process.isRunning ?? false }
    var processID: Int32? { current.withLock { $0 }?.process.processIdentifier }
    var command: RunningCommand? { current.withLock { $0 } }

    /// The daemon's resident memory in kB (`VmRSS` in /proc).
    var residentKilobytes: Int? {
        guard let pid = processID, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            return nil
        }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
    var output: String { current.withLock { $0 }?.stdout ?? "" }

    /// Stops the daemon with SIGKILL: a child of a test process may inherit a signal mask that blocks SIGTERM.
    func stop() async {
        await current.withLock { $0 }?.kill9()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Identifiers whose add the daemon acknowledged.
final class Acknowledged: Sendable {
    private let ids = Mutex<Set<String>>([])
    func insert(_ id: String) { ids.withLock { _ = $0.insert(id) } }
    var all: Set<String> { ids.withLock { $0 } }
}

func payload(_ title: String) -> NotificationPayload {
    var content = NotificationPayload()
    content.title = title
    return content
}

/// A Unix-domain socket bound to `path` and listening (close-on-exec), as systemd makes one for socket activation.
func listeningSocket(at path: String, backlog: Int32) throws -> Int32 {
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    try #require(listener >= 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(listener, backlog) == 0 else {
        close(listener)
        throw SystemError(errno: errno)
    }
    return listener
}

/// Starts `daemon` as systemd starts a socket-activated service: `listener` as fd 3, `LISTEN_FDS=1` and `LISTEN_PID`
/// set to the daemon's own pid (a shell sets it to its `$$` and then becomes the daemon), standard output discarded.
/// - Returns: The daemon's pid; the caller kills and reaps it.
func spawnSocketActivated(daemon: String, listener: Int32, arguments: [String], environment: [String]) throws -> pid_t {
    let argv = ["/bin/sh", "-c", #"LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@""#, daemon] + arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, listener, 3)  // dup2 clears close-on-exec on fd 3
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer { (cArguments + cEnvironment).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, cArguments, cEnvironment)
    guard spawned == 0 else { throw SystemError(errno: spawned) }
    return pid
}

/// A failed system call in a test's own socket code.
struct SystemError: Error { let errno: Int32 }

/// A raw connection that speaks whatever bytes a test wants.
final class RawSocket: Sendable {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(result == 0)
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    func send(bytes count: Int, of byte: UInt8) {
        let chunk = [UInt8](repeating: byte, count: 65_536)
        var left = count
        while left > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min(left, chunk.count)) }
            if written <= 0 { return }
            left -= written
        }
    }

    /// Reads until the daemon closes the connection (bounded); returns what it said.
    func readUntilClosed(timeout: Double = 10) async -> (text: String, closed: Bool) {
        let descriptor = descriptor
        return await offPool { Self.readAll(descriptor, timeout: timeout) }
    }

    private static func readAll(_ descriptor: Int32, timeout: Double) -> (text: String, closed: Bool) {
        var timeoutValue = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeoutValue, socklen_t(MemoryLayout<timeval>.size))
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return (String(decoding: data, as: UTF8.self), true) }
            // A peer that closes with our bytes still unread in its buffer resets the connection: closed too.
            if count < 0 { return (String(decoding: data, as: UTF8.self), errno == ECONNRESET) }
            data += buffer[0..<count]
        }
    }
}

@Suite("unotifyd reliability", .serialized)
struct DaemonReliabilityTests {
    static let hello = #"{"hello":{"_0":{"protocolVersion":1,"appID":"com.example.raw","processID":1}}}"# + "\n"

    /// Starts the daemon and gives com.example.raw 20 requests whose listing is about 50 kB, listed once; returns
    /// the client that added them.
    static func startWithLongListing(_ daemon: DaemonProcess) async throws -> DaemonBackend {
        try await daemon.start()
        let client = DaemonBackend(socketPath: daemon.socket)
        for index in 0..<20 {
            try await client.add(
                RequestSpec(
                    identifier: "r\(index)", content: payload(String(repeating: "long title ", count: 200)),
                    trigger: .timeInterval(3_600, repeats: false)),
                appID: "com.example.raw")
        }
        _ = try await client.pendingRequests(appID: "com.example.raw")
        return client
    }

    @Test("kill -9 during 10,000 adds from 8 clients loses no acknowledged add; due ones are delivered, repeated at most once per crash")
    func killDuringBurst() async throws {
        let daemon = DaemonProcess(arguments: ["--pending-cap", "off"])
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let app = "com.example.burst"
        let acknowledged = Acknowledged()
        let crashes = 3
        let clients = Task {
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        let backend = DaemonBackend(socketPath: daemon.socket)
                        for index in 0..<1_250 {
                            let id = "c\(client)-\(index)"
                            let due: TimeInterval = index % 125 == 0 ? 1 : 3_600
                            let spec = RequestSpec(identifier: id, content: payload(id), trigger: .timeInterval(due, repeats: false))
                            while true {
                                do {
                                    try await backend.add(spec, appID: app)
                                    acknowledged.insert(id)
                                    break
                                } catch {
                                    try? await Task.sleep(for: .milliseconds(20))  // the daemon is restarting
                                }
                            }
                        }
                    }
                }
            }
        }
        for _ in 0..<crashes {
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...700)))
            await daemon.kill9()
            try await daemon.start()
        }
        await clients.value
        #expect(acknowledged.all.count == 10_000)

        let backend = DaemonBackend(socketPath: daemon.socket)
        let dueIDs = Set((0..<8).flatMap { client in stride(from: 0, to: 1_250, by: 125).map { "c\(client)-\($0)" } })
        var delivered: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(20)
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            delivered = Dictionary(grouping: try await backend.history(appID: app, limit: 100_000).map(\.requestIdentifier)) { $0 }
                .mapValues(\.count)
        } while Set(delivered.keys) != dueIDs && Date() < deadline
        #expect(Set(delivered.keys) == dueIDs)
        #expect(delivered.values.allSatisfy { $0 <= 1 + crashes }, "\(delivered.filter { $0.value > 1 })")
        let pending = Set(try await backend.pendingRequests(appID: app).map(\.identifier))
        let missing = acknowledged.all.subtracting(pending).subtracting(delivered.keys)
        #expect(missing.isEmpty, "lost \(missing.count) acknowledged adds, e.g. \(missing.prefix(5))")
    }

    @Test("corrupt, truncated, oversized and wrong-version messages close that connection only")
    func badMessages() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let good = DaemonBackend(socketPath: daemon.socket)
        try await good.add(RequestSpec(identifier: "before", content: payload("before"), trigger: .timeInterval(3_600, repeats: false)), appID: "com.example.good")

        let corrupt = try RawSocket(path: daemon.socket)
        corrupt.send(Self.hello + "{ this is not json\n")
        let corruptResult = await corrupt.readUntilClosed()
        #expect(corruptResult.closed && corruptResult.text.contains("malformed"))

        let oversized = try RawSocket(path: daemon.socket)
        oversized.send(Self.hello)
        oversized.send(bytes: 2 << 20, of: UInt8(ascii: "x"))
        #expect(await oversized.readUntilClosed().closed)

        let truncated = try RawSocket(path: daemon.socket)
        truncated.send(#"{"hello":{"_0":{"protocolVersion":1,"app"#)
        shutdown(truncated.descriptor, Int32(SHUT_WR))
        #expect(await truncated.readUntilClosed().closed)

        let mismatch = try RawSocket(path: daemon.socket)
        mismatch.send(#"{"hello":{"_0":{"protocolVersion":999,"appID":"x","processID":1}}}"# + "\n")
        let mismatchResult = await mismatch.readUntilClosed()
        #expect(mismatchResult.closed && mismatchResult.text.contains("protocolMismatch"))

        let noHello = try RawSocket(path: daemon.socket)
        noHello.send(#"{"request":{"id":1,"_1":"pendingRequests"}}"# + "\n")
        #expect(await noHello.readUntilClosed().closed)

        // The daemon and the other client went on.
        #expect(daemon.isRunning)
        try await good.add(RequestSpec(identifier: "after", content: payload("after"), trigger: .timeInterval(3_600, repeats: false)), appID: "com.example.good")
        #expect(Set(try await good.pendingRequests(appID: "com.example.good").map(\.identifier)) == ["before", "after"])
    }

    @Test("a client that pipelines requests and never reads is no longer read: memory stays bounded, others are served, SIGTERM exits within 2 s")
    func slowClient() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        let other = try await Self.startWithLongListing(daemon)
        let idle = try #require(daemon.residentKilobytes)
        // 3,000 listings of ~50 kB each (150 MB if the daemon buffered them) that the client never reads.
        let stalled = try RawSocket(path: daemon.socket)
        var requests = Self.hello
        for id in 1...3_000 { requests += #"{"request":{"id":\#(id),"_1":{"pendingRequests":{}}}}"# + "\n" }
        let sender = Task.detached { stalled.send(requests) }  // blocks once the daemon stops reading
        var peak = idle
        for _ in 0..<20 {
            _ = try await other.pendingRequests(appID: "com.example.raw")  // another client is served all along
            peak = max(peak, daemon.residentKilobytes ?? 0)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(peak - idle < 40_000, "resident memory grew from \(idle) kB to \(peak) kB")
        #expect(try await other.status(appID: "com.example.raw").connectedClients == 2)
        // SIGTERM with the stalled client still connected: the daemon exits promptly.
        let command = try #require(daemon.command)
        let signalled = Date()
        kill(command.process.processIdentifier, SIGTERM)
        await command.waitForExit()
        #expect(Date().timeIntervalSince(signalled) < 2, "SIGTERM took \(Date().timeIntervalSince(signalled)) s")
        #expect(command.process.terminationStatus == 0, "\(command.stderr)")
        shutdown(stalled.descriptor, Int32(SHUT_RDWR))
        _ = await sender.value
    }

    @Test("after a client that never read leaves, the daemon's memory returns to its idle level")
    func memoryReturns() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        let other = try await Self.startWithLongListing(daemon)
        let idle = try #require(daemon.residentKilobytes)
        for _ in 0..<3 {
            let stalled = try RawSocket(path: daemon.socket)
            var requests = Self.hello
            for id in 1...500 { requests += #"{"request":{"id":\#(id),"_1":{"pendingRequests":{}}}}"# + "\n" }
            let sender = Task.detached { stalled.send(requests) }
            try await Task.sleep(for: .milliseconds(200))
            shutdown(stalled.descriptor, Int32(SHUT_RDWR))
            _ = await sender.value
        }
        var clients = 0
        for _ in 0..<100 {
            clients = try await other.status(appID: "com.example.raw").connectedClients
            if clients == 1 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(clients == 1)
        let after = try #require(daemon.residentKilobytes)
        #expect(after - idle < 20_000, "idle \(idle) kB, after the bad clients left \(after) kB")
    }

    @Test("peers of another user are refused", .enabled(if: getuid() == 0, "needs root to act as another user"))
    func otherUserRefused() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        // Open the socket and its folder to everyone, so only the SO_PEERCRED check stands in the way.
        chmod(daemon.folder.path, 0o755)
        chmod(URL(fileURLWithPath: daemon.socket).deletingLastPathComponent().path, 0o777)
        chmod(daemon.socket, 0o666)
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            try:
                s.connect(sys.argv[1])
            except OSError as error:
                print("refused at connect: " + type(error).__name__)
                sys.exit(0)
            try:
                s.sendall(sys.argv[2].encode())
                data = s.recv(4096)
            except OSError:
                data = b''
            print("closed" if data == b'' else "answered: " + data.decode())
            """
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, daemon.socket, Self.hello]
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        await process.exited()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // Refused either way: the daemon closes without a word (SO_PEERCRED), or the connection never opens.
        #expect(text == "closed" || text.hasPrefix("refused at connect"), "a foreign user got: \(text) \(stderr)")
        #expect(!text.hasPrefix("answered"))
        #expect(process.terminationStatus == 0, "\(stderr)")
    }

    @Test("the socket is created with mode 0600 in a folder of mode 0700")
    func socketMode() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let socketMode = try FileManager.default.attributesOfItem(atPath: daemon.socket)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(
            atPath: URL(fileURLWithPath: daemon.socket).deletingLastPathComponent().path)[.posixPermissions] as? Int
        #expect(socketMode == 0o600)
        #expect(folderMode == 0o700)
    }

    @Test(
        "a full disk answers clients with errors and damages nothing",
        .enabled(if: Mount.tmpfsIsAvailable, "needs permission to mount a small tmpfs"))
    func fullOrReadOnlyDisk() async throws {
        let disk = URL(fileURLWithPath: "/tmp/unotifyd-disk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        try #require(Mount.run(["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk.path]))
        defer {
            _ = Mount.run([disk.path], command: "/bin/umount")
            try? FileManager.default.removeItem(at: disk)
        }
        let daemon = DaemonProcess(storeFolder: disk, arguments: ["--pending-cap", "off"])
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let client = DaemonBackend(socketPath: daemon.socket)
        let app = "com.example.disk"
        func add(_ id: String) async throws {
            try await client.add(RequestSpec(identifier: id, content: payload(id), trigger: .timeInterval(3_600, repeats: false)), appID: app)
        }
        for index in 0..<5 { try await add("kept\(index)") }

        // Fill the file system, then keep adding until the store refuses.
        let filler = disk.appendingPathComponent("filler")
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        while (try? handle.write(contentsOf: Data(count: 65_536))) != nil {}
        try? handle.close()
        var refused: (any Error)?
        for index in 0..<200 where refused == nil {
            do { try await add("big\(index)-" + String(repeating: "x", count: 4_000)) } catch { refused = error }
        }
        let error = try #require(refused as? EngineError)
        #expect(error.code == .storeFailure)
        #expect(daemon.isRunning)
        #expect(Set(try await client.pendingRequests(appID: app).map(\.identifier)).isSuperset(of: (0..<5).map { "kept\($0)" }))
        try FileManager.default.removeItem(at: filler)
        try await add("after-full")

        let pending = Set(try await client.pendingRequests(appID: app).map(\.identifier))
        #expect(pending.isSuperset(of: ["kept0", "kept4", "after-full"]))
    }
}

extension DaemonReliabilityTests {
    @Test(
        "a store on a read-only file system is served read-only: reads answer, changes fail, the file is untouched",
        .enabled(if: Mount.tmpfsIsAvailable, "needs permission to bind-mount"),
        arguments: [false, true])
    func readOnlyStore(cleanStop: Bool) async throws {
        let root = URL(fileURLWithPath: "/tmp/unotifyd-ro-\(UUID().uuidString.prefix(8))")
        let source = root.appendingPathComponent("source")
        let view = root.appendingPathComponent("view")
        for folder in [source, view] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: root) }
        let app = "com.example.readonly"
        let ids = (0..<5).map { "kept\($0)" }

        // Fill the store through a daemon, then stop it abruptly (its -wal and -shm stay) or cleanly (they go).
        let writer = DaemonProcess(storeFolder: source)
        try await writer.start()
        let first = DaemonBackend(socketPath: writer.socket)
        for id in ids {
            try await first.add(RequestSpec(identifier: id, content: payload(id), trigger: .timeInterval(3_600, repeats: false)), appID: app)
        }
        await writer.stop()
        if cleanStop {
            // The last connection to close checkpoints the log and removes the -wal and -shm files.
            _ = try SQLiteNotificationStore(path: writer.store)
        }
        let storeFiles = ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm"]
        func snapshot() -> [String: Data] {
            storeFiles.reduce(into: [:]) { $0[$1] = FileManager.default.contents(atPath: source.appendingPathComponent($1).path) }
        }
        let before = snapshot()
        #expect(before["store.sqlite-wal"] == nil || !cleanStop)

        try #require(Mount.run(["--bind", source.path, view.path]))
        defer { _ = Mount.run([view.path], command: "/bin/umount") }
        try #require(Mount.run(["-o", "remount,bind,ro", view.path]))

        let daemon = DaemonProcess(storeFolder: view)
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let client = DaemonBackend(socketPath: daemon.socket)
        #expect(Set(try await client.pendingRequests(appID: app).map(\.identifier)) == Set(ids))
        let refusedAdd = await #expect(throws: EngineError.self) {
            try await client.add(RequestSpec(identifier: "new", content: payload("new"), trigger: nil), appID: app)
        }
        #expect(refusedAdd?.code == .storeFailure)
        let refusedRemove = await #expect(throws: EngineError.self) {
            try await client.removePending(appID: app, identifiers: ["kept0"])
        }
        #expect(refusedRemove?.code == .storeFailure)
        let status = try await client.status()
        #expect(status.pendingCount == ids.count)
        #expect(daemon.isRunning)
        await daemon.stop()

        #expect(snapshot() == before, "the read-only daemon changed the store's files")
    }
}

extension DaemonReliabilityTests {
    @Test("socket activation: unotifyd serves the listening socket it inherits as fd 3 (LISTEN_FDS, LISTEN_PID)")
    func socketActivation() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotifyd-activation-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("d.sock").path
        let unused = folder.appendingPathComponent("bound-by-the-daemon.sock").path

        // What systemd does for unotifyd.socket: create, bind and listen, then start the service with it as fd 3.
        let listener = try listeningSocket(at: path, backlog: 16)
        defer { close(listener) }

        let pid = try spawnSocketActivated(
            daemon: try builtExecutable("unotifyd").path, listener: listener,
            // --socket names another path: had the daemon bound a socket of its own, it would be there.
            arguments: [
                "--socket", unused, "--store", folder.appendingPathComponent("store.sqlite").path, "--log-level",
                "warning", "--presenter", "terminal", "--apns-address", "off", "--web-address", "off",
            ],
            environment: ["PATH=/usr/bin:/bin", "HOME=\(folder.path)"])
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }

        // The socket already accepts connections (the kernel queues them); the daemon answers once it runs.
        let client = DaemonBackend(socketPath: path)
        try await client.add(
            RequestSpec(identifier: "activated", content: payload("activated"), trigger: .timeInterval(3_600, repeats: false)),
            appID: "com.example.activation")
        #expect(try await client.pendingRequests(appID: "com.example.activation").map(\.identifier) == ["activated"])
        let status = try await client.status()
        #expect(status.processID == pid)
        #expect(!FileManager.default.fileExists(atPath: unused))
    }
}

@Suite("unotifyd and time", .serialized)
struct DaemonTimeTests {
    @Test("a system time-zone change moves floating calendar triggers at once; fixed ones and intervals stay")
    func zoneChange() async throws {
        let etc = URL(fileURLWithPath: "/tmp/unotifyd-etc-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: etc) }
        for zone in ["Europe/Paris", "America/New_York"] {
            let file = etc.appendingPathComponent("zoneinfo/\(zone)")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: file.path, contents: Data())
        }
        let localtime = etc.appendingPathComponent("localtime")
        try FileManager.default.createSymbolicLink(atPath: localtime.path, withDestinationPath: etc.path + "/zoneinfo/Europe/Paris")
        let daemon = DaemonProcess(arguments: [
            "--localtime-path", localtime.path, "--timezone-path", etc.appendingPathComponent("timezone").path,
            "--log-level", "info",  // what it did with the connection, should it be lost again
        ])
        defer { Task { await daemon.stop() } }
        do {
            try await zoneChange(daemon: daemon, etc: etc, localtime: localtime)
        } catch {
            // A one-off "connection to unotifyd was lost" in two full runs: say what the daemon did.
            let status = daemon.isRunning ? "running" : "exited (\(daemon.command.map { "\($0.process.terminationStatus)" } ?? "?"))"
            Issue.record("the daemon is \(status); its stderr: \(daemon.command?.stderr ?? "")")
            throw error
        }
    }

    private func zoneChange(daemon: DaemonProcess, etc: URL, localtime: URL) async throws {
        try await daemon.start(environment: ["TZ": ""])
        let client = DaemonBackend(socketPath: daemon.socket)
        let app = "com.example.zones"
        var nine = CalendarComponents()
        nine.hour = 9
        var fixedNine = nine
        fixedNine.timeZoneIdentifier = "Europe/Paris"
        for (id, trigger) in [
            ("floating", TriggerSpec.calendar(nine, repeats: true, matching: .apple)),
            ("fixed", .calendar(fixedNine, repeats: true, matching: .apple)), ("interval", .timeInterval(7_200, repeats: false)),
        ] {
            try await client.add(RequestSpec(identifier: id, content: payload(id), trigger: trigger), appID: app)
        }
        func planned() async throws -> [String: Date] {
            Dictionary(uniqueKeysWithValues: try await client.pendingRequests(appID: app).map { ($0.identifier, $0.nextFireDate!) })
        }
        func nextNine(in zone: String) -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
            return calendar.nextDate(after: Date(), matching: DateComponents(hour: 9), matchingPolicy: .nextTime)!
        }
        let before = try await planned()
        #expect(before["floating"] == nextNine(in: "Europe/Paris"))
        // Change the zone as timedatectl does: a new link renamed over the old one.
        let replacement = etc.appendingPathComponent("localtime.new")
        try FileManager.default.createSymbolicLink(atPath: replacement.path, withDestinationPath: etc.path + "/zoneinfo/America/New_York")
        #expect(rename(replacement.path, localtime.path) == 0)
        let expected = nextNine(in: "America/New_York")
        let deadline = Date().addingTimeInterval(10)
        var after = before
        while after["floating"] != expected, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            after = try await planned()
        }
        #expect(after["floating"] == expected)
        #expect(after["fixed"] == before["fixed"])
        #expect(after["interval"] == before["interval"])
    }
}

/// Mounting for the disk tests (root, and a kernel that lets this sandbox mount tmpfs).
enum Mount {
    static let tmpfsIsAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let probe = "/tmp/unotifyd-mount-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard run(["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]) else { return false }
        return run([probe], command: "/bin/umount")
    }()

    @discardableResult
    static func run(_ arguments: [String], command: String = "/bin/mount") -> Bool {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

@Suite("unotifyd and location sources")
struct DaemonLocationSourceTests {
    @Test("a location source given to the daemon feeds its engine: crossing into a region fires its request")
    func sourceFeedsEngine() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotifyd-location-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = ManualLocationSource()
        var configuration = DaemonConfiguration(socketPath: folder.appendingPathComponent("d.sock").path, storePath: "")
        configuration.runsEngineLoop = false
        configuration.locationSource = source
        let presenter = RecordingPresenter()
        let daemon = NotificationDaemon(
            configuration: configuration, store: try SQLiteNotificationStore(), clock: SystemNotificationClock(),
            presenter: presenter)
        let running = Task { try await daemon.run() }
        defer { running.cancel() }
        await daemon.waitUntilListening()
        let app = "com.example.geofence"
        try await daemon.scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert])
        let office = RegionSpec(
            identifier: "office", latitude: 48.8725, longitude: 2.3508, radius: 100, notifyOnEntry: true,
            notifyOnExit: false)
        try await daemon.scheduler.add(
            RequestSpec(identifier: "arrived", content: payload("At the office"), trigger: .location(office, repeats: false)),
            appID: app)
        // Two kilometres south, then at the center: an entry. A fix reported before the daemon's task listens is
        // not seen, so the pair is reported again until the notification shows (a non-repeating request fires once).
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while presenter.presentations.isEmpty, ContinuousClock.now < deadline {
            source.report(LocationFix(latitude: 48.8545, longitude: 2.3508, horizontalAccuracy: 10, timestamp: Date()))
            source.report(LocationFix(latitude: 48.8725, longitude: 2.3508, horizontalAccuracy: 10, timestamp: Date()))
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(presenter.presentations.map(\.identifier) == ["arrived"])
    }
}
