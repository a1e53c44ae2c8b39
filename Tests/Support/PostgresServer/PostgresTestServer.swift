import Foundation
import NotificationPlatform
import Synchronization

#if os(Linux)
    import Glibc
#elseif os(macOS)
    import Darwin
#else
    #error("PostgresTestServer: unsupported operating system")
#endif

/// A throwaway PostgreSQL server for tests: `initdb` and `pg_ctl` from Debian's `postgresql` package, run in a
/// temporary folder, reachable only through a Unix socket in that folder (no TCP port, so no port can be taken).
///
/// One server serves a whole test process (``shared()``); each test takes a database of its own
/// (``makeDatabase()``), so tests run in parallel without seeing each other's rows. A test that stops the server under
/// a running worker takes one of its own (``dedicated()``, then ``stop()`` and ``start()``). Servers stop when the test
/// process exits, and a server a killed test process left behind is stopped by the next process that starts one.
///
/// PostgreSQL refuses to run as root: when the tests run as root (CI, containers), `initdb` and `pg_ctl` run as the
/// `postgres` user the Debian package creates (through `runuser`), or as `nobody` when there is no such user; the
/// folder is given to that user. The clients (the tests) connect as the database user ``user`` without a password
/// (`trust` authentication, which the socket's folder limits to this machine).
///
/// The binaries are looked for in `/usr/lib/postgresql/<version>/bin` (the newest version) unless `OPENUN_PG_BIN`
/// names their folder.
///
/// ```swift
/// let server = try await PostgresTestServer.shared()
/// let database = try await server.makeDatabase()
/// let configuration = PostgresClient.Configuration(
///     unixSocketPath: server.socketPath, username: server.user, password: nil, database: database)
/// try await PostgresNotificationStore.withStore(configuration: configuration) { store in … }
/// ```
public final class PostgresTestServer: Sendable {
    /// Why a server could not be started or a database made.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What failed, with the program's output and the server's log when there is one.
        public let description: String
    }

    /// The database superuser the tests connect as.
    public let user = "unotify"
    /// The folder holding the data directory, the log and the socket.
    public let folder: String
    /// The folder of the server's socket (the `host` of a libpq connection string).
    public var socketDirectory: String { folder }
    /// The port in the socket's name (`.s.PGSQL.<port>`); nothing listens on TCP.
    public let port = 5432
    /// The full path of the server's socket, as PostgresNIO's `unixSocketPath` takes it.
    public var socketPath: String { folder + "/.s.PGSQL.\(port)" }
    /// The folder of `initdb`, `pg_ctl` and `createdb`.
    public let binaries: String

    private let databaseCount = Atomic<Int>(0)

    private init(folder: String, binaries: String, durable: Bool) {
        self.folder = folder
        self.binaries = binaries
        self.durable = durable
    }

    private static let started = Mutex<Task<PostgresTestServer, any Error>?>(nil)
    /// Each running server's folder and postmaster pid, for the exit handler (which cannot capture).
    private static let running = Mutex<[String: pid_t]>([:])
    /// Whether the exit handler is installed.
    private static let exitHandlerInstalled = Atomic<Bool>(false)
    /// How many dedicated servers this process made (their folders' suffixes).
    private static let dedicatedCount = Atomic<Int>(0)

    /// Whether the server flushes commits to disk (`fsync`, `synchronous_commit` and `full_page_writes` on).
    public let durable: Bool

    /// The test process's server, started on first use.
    ///
    /// - Parameter durable: Whether the server flushes each commit to disk, as a production server does; off by
    ///   default (tests do not measure durability, and each test's database is cheaper without). Only the first call
    ///   of the process decides; `unotify-server-bench --fsync` passes `true`.
    /// - Throws: ``Failure`` when PostgreSQL is not installed or does not start (its log is in the message).
    public static func shared(durable: Bool = false) async throws -> PostgresTestServer {
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await start(durable: durable) }
            task = new
            return new
        }
        return try await task.value
    }

    /// A server of its own, for a test that stops and restarts it (the shared one must never stop while the process
    /// runs). Remove it with ``remove()`` at the end; the exit handler stops it otherwise.
    ///
    /// - Parameter durable: Whether it flushes each commit to disk.
    public static func dedicated(durable: Bool = false) async throws -> PostgresTestServer {
        try await start(durable: durable, suffix: "-\(dedicatedCount.add(1, ordering: .relaxed).newValue)")
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`: no checkpoint, clients cut off).
    public func stop() async throws {
        try await run("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "-t", "60", "stop"], as: Self.runAs())
        _ = Self.running.withLock { $0.removeValue(forKey: folder) }
    }

    /// Starts the server again on its data after ``stop()``.
    public func start() async throws {
        try await run(
            "pg_ctl", ["-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "-o", options, "start"],
            as: Self.runAs())
        Self.noteRunning(folder: folder)
    }

    /// Stops a ``dedicated()`` server and removes its folder.
    public func remove() {
        if let pid = Self.running.withLock({ $0.removeValue(forKey: folder) }) { Self.stopPostmaster(pid) }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The root of every test server's folder, one per user running tests: `<pid of the test process>` below it
    /// (`<pid>-<n>` for dedicated servers).
    private static var root: String { "/tmp/openun-postgres-tests-\(getuid())" }

    /// The options `pg_ctl` passes to the server.
    private var options: String {
        // Durability is not what most tests measure: no fsync makes each test's database cheap.
        let flushing = durable ? "on" : "off"
        return "-k \(folder) -c listen_addresses='' -p \(port) -c fsync=\(flushing) "
            + "-c synchronous_commit=\(flushing) -c full_page_writes=\(flushing) -c max_connections=300"
    }

    /// Remembers a started server's postmaster, for the exit handler.
    private static func noteRunning(folder: String) {
        guard
            let pid = (try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8))?
                .split(separator: "\n").first.flatMap({ pid_t($0) })
        else { return }
        running.withLock { $0[folder] = pid }
        if !exitHandlerInstalled.exchange(true, ordering: .relaxed) {
            atexit { PostgresTestServer.stopAtExit() }
        }
    }

    private static func start(durable: Bool, suffix: String = "") async throws -> PostgresTestServer {
        guard let binaries = binaryFolder() else {
            throw Failure(
                description: "PostgreSQL is not installed: no /usr/lib/postgresql/<version>/bin/initdb (Debian's "
                    + "`postgresql` package; scripts/test installs it) and OPENUN_PG_BIN is not set")
        }
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        stopLeftovers()
        let folder = root + "/\(getpid())" + suffix
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let owner = runAs()
        if let owner {
            guard chown(folder, owner.uid, owner.gid) == 0 else {
                throw Failure(description: "cannot give \(folder) to \(owner.name): errno \(errno)")
            }
        }
        let server = PostgresTestServer(folder: folder, binaries: binaries, durable: durable)
        try await server.run(
            "initdb",
            ["-D", folder + "/data", "-U", server.user, "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"],
            as: owner)
        try await server.start()
        return server
    }

    /// Makes an empty database for one test and returns its name.
    public func makeDatabase() async throws -> String {
        let name = "test_\(getpid())_\(databaseCount.add(1, ordering: .relaxed).newValue)"
        try await run("createdb", ["-h", folder, "-p", "\(port)", "-U", user, name], as: nil)
        return name
    }

    /// Runs one of the server's programs and waits for it, as `owner` (through `runuser`) when given.
    private func run(_ program: String, _ arguments: [String], as owner: Owner?) async throws {
        var executable = binaries + "/" + program
        var all = arguments
        if let owner {
            all = ["-u", owner.name, "--", executable] + arguments
            executable = SpawnedProcess.executable(named: "runuser") ?? "/usr/sbin/runuser"
        }
        var environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C"]
        if let owner { environment["HOME"] = folder; environment["USER"] = owner.name }
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(executable: executable, arguments: all, environment: environment)
        } catch {
            throw Failure(description: "cannot start \(executable): \(error)")
        }
        let exit = await child.waitForExit(timeout: .seconds(120))
        guard exit.succeeded else {
            let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(
                description: "\(program) \(arguments.joined(separator: " ")) \(exit.summary): \(exit.errorOutput)"
                    + "\(exit.output)\(log.isEmpty ? "" : "\nserver log:\n" + log)")
        }
    }

    /// The user the server runs as when this process is root.
    private struct Owner {
        var name: String
        var uid: uid_t
        var gid: gid_t
    }

    private static func runAs() -> Owner? {
        guard getuid() == 0 else { return nil }
        for name in ["postgres", "nobody"] {
            if let entry = getpwnam(name) {
                return Owner(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
            }
        }
        return nil
    }

    private static func binaryFolder() -> String? {
        if let folder = ProcessInfo.processInfo.environment["OPENUN_PG_BIN"], !folder.isEmpty { return folder }
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init)
        return versions.sorted(by: >).map { "\(base)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// Stops the servers of test processes that no longer run (killed before their exit handler ran), and removes
    /// their folders.
    private static func stopLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for name in names {
            let process = name.split(separator: "-").first.map(String.init) ?? name
            guard let owner = pid_t(process), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { continue }
            let folder = root + "/" + name
            if let line = (try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8))?
                .split(separator: "\n").first, let postmaster = pid_t(line)
            {
                stopPostmaster(postmaster)
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Immediate shutdown (`SIGQUIT`, what `pg_ctl stop -m immediate` sends), waiting up to 10 s for it to end.
    private static func stopPostmaster(_ pid: pid_t) {
        guard kill(pid, SIGQUIT) == 0 else { return }
        for _ in 0..<1_000 {
            if kill(pid, 0) != 0 || isZombie(pid) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
    }

    /// Whether `pid` has ended but was not reaped yet (its parent is init, which may be slow to reap, or a
    /// container's first process, which may never reap).
    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// The exit handler: stops the process's servers and removes their folders.
    private static func stopAtExit() {
        for (folder, pid) in running.withLock({ $0 }) {
            stopPostmaster(pid)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
