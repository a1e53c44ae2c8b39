import DBusKit
import Foundation
import NotificationPlatform

#if os(Linux)
import Glibc
#else
#error("NotificationGeoClueTests: unsupported operating system")
#endif

/// GeoClue2 on a bus of the test's own: a private `dbus-daemon` with a `<type>system</type>` configuration, an
/// NMEA server on a Unix socket, `geoclue` reading it (`--nmea-socket`, so `/etc/geoclue/geoclue.conf` stays
/// untouched), and the demo agent, all with `DBUS_SYSTEM_BUS_ADDRESS` naming the private bus.
final class GeoClueStack {
    static let geoclue = "/usr/libexec/geoclue"
    static let agent = "/usr/libexec/geoclue-2.0/demos/agent"

    /// Whether geoclue, the demo agent and dbus-daemon are installed and we are root (geoclue reads
    /// `/etc/geoclue/geoclue.conf` and the agent is looked up by user id).
    static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: geoclue)
            && FileManager.default.isExecutableFile(atPath: agent)
            && SpawnedProcess.executable(named: "dbus-daemon") != nil
    }

    let folder: URL
    let busAddress: String
    private var children: [SpawnedProcess] = []
    private var nmea: NMEAServer?

    /// Starts the bus, the NMEA server serving `sentences`, geoclue and the agent; throws (after stopping what
    /// started) when one does not come up in time.
    init(sentences: [String]) async throws {
        // Short: a Unix socket path has at most 107 bytes.
        folder = URL(fileURLWithPath: "/tmp/gc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let socket = folder.appendingPathComponent("system_bus_socket").path
        busAddress = "unix:path=\(socket)"
        do {
            try await start(sentences: sentences, socket: socket)
        } catch {
            await stop()
            throw error
        }
    }

    private func start(sentences: [String], socket: String) async throws {
        children.append(try PrivateSystemBus.spawn(in: folder, socket: socket))
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let probe = try await poll("the private system bus") { try? DBusConnection(address: self.busAddress) }
        defer { Task { await probe.close() } }

        let gps = folder.appendingPathComponent("gps.sock").path
        func logFile(_ name: String) -> String { folder.appendingPathComponent("\(name).log").path }
        nmea = try NMEAServer(path: gps, sentences: sentences)
        let environment = [
            "PATH": path, "HOME": folder.path, "DBUS_SYSTEM_BUS_ADDRESS": busAddress, "G_MESSAGES_DEBUG": "all",
        ]
        children.append(
            try SpawnedProcess(
                executable: Self.geoclue, arguments: ["--timeout=0", "--nmea-socket=\(gps)"], environment: environment,
                standardOutput: .file(logFile("geoclue")), standardError: .file(logFile("geoclue"))))
        _ = try await poll("geoclue on the bus") { () async -> Bool? in
            let reply = try? await probe.call(
                DBusMethodCall(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "NameHasOwner",
                    arguments: [.string("org.freedesktop.GeoClue2")]))
            return reply?.first == .boolean(true) ? true : nil
        }
        children.append(
            try SpawnedProcess(
                executable: Self.agent, arguments: [], environment: environment,
                standardOutput: .file(logFile("agent")), standardError: .file(logFile("agent"))))
    }

    private func poll<Value>(_ what: String, _ attempt: () async -> Value?) async throws -> Value {
        try await PrivateSystemBus.poll("\(what) (logs in \(folder.path))", attempt)
    }

    /// The log of one child (`geoclue`, `agent`, `bus`), for failure messages.
    func log(_ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    /// Kills every child (SIGKILL, in reverse order), stops the NMEA server and removes the folder.
    func stop() async {
        for child in children.reversed() { await child.stop(signal: SIGKILL) }
        children.removeAll()
        await nmea?.stop()
        nmea = nil
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A `dbus-daemon` with a `<type>system</type>` configuration that lets everyone own and call everything.
enum PrivateSystemBus {
    /// Writes the configuration into `folder` and starts the daemon listening at `socket`.
    static func spawn(in folder: URL, socket: String) throws -> SpawnedProcess {
        let configuration = folder.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
            <allow user="*"/>
          </policy>
        </busconfig>
        """.write(to: configuration, atomically: true, encoding: .utf8)
        guard let daemon = SpawnedProcess.executable(named: "dbus-daemon") else { throw FixtureError("no dbus-daemon") }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let log = folder.appendingPathComponent("bus.log").path
        return try SpawnedProcess(
            executable: daemon, arguments: ["--config-file=\(configuration.path)", "--nofork"],
            environment: ["PATH": path], standardOutput: .file(log), standardError: .file(log))
    }

    /// Retries `attempt` every 50 ms until it returns a value, for at most 15 seconds.
    static func poll<Value>(_ what: String, _ attempt: () async -> Value?) async throws -> Value {
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while ContinuousClock.now < deadline {
            if let value = await attempt() { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("\(what) did not come up within 15 s")
    }
}

/// A test failure in the fixtures (a program that does not start, a bus that does not answer).
struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
