import DBusKit
import Foundation
import NotificationPlatform

#if os(Linux)
import Glibc
import TestPrograms
#else
#error("NotificationDesktopTests: unsupported operating system")
#endif

/// A desktop of the test's own: an Xvfb display, a private session bus whose environment names that display, and
/// dunst, which the bus starts on the first call to `org.freedesktop.Notifications` (D-Bus activation; starting
/// it by hand as well would race for the name).
///
/// ```swift
/// let desktop = try PrivateDesktop()
/// defer { desktop.stop() }
/// let connection = try DBusConnection(address: desktop.busAddress)
/// print(try await desktop.dunstctl("count", "displayed"))
/// ```
final class PrivateDesktop {
    /// Whether the programs the suite needs are installed.
    static var isAvailable: Bool {
        ["dunst", "dunstctl", "Xvfb", "dbus-daemon"].allSatisfy { SpawnedProcess.executable(named: $0) != nil }
    }

    let busAddress: String
    let display: String
    let folder: URL
    private let xvfb: SpawnedProcess
    private let bus: SpawnedProcess

    /// The environment for programs that talk to this desktop.
    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "DISPLAY": display,
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "HOME": folder.path,
            "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
        ]
    }

    /// Starts Xvfb on a free display (it picks one and reports it through `-displayfd`) and a session bus. What
    /// started before a failure is killed as the initializer gives it up.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("desktop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("config"), withIntermediateDirectories: true)
        guard let xvfbPath = SpawnedProcess.executable(named: "Xvfb"),
            let busPath = SpawnedProcess.executable(named: "dbus-daemon")
        else {
            throw FixtureError("Xvfb or dbus-daemon is missing")
        }
        let base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder.path]
        xvfb = try SpawnedProcess(
            executable: xvfbPath, arguments: ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
            environment: base, standardOutput: .pipe,
            standardError: .file(folder.appendingPathComponent("xvfb.log").path))
        guard let number = try? xvfb.firstLine(within: .seconds(15)), Int(number) != nil else {
            throw FixtureError("Xvfb reported no display (see \(folder.path)/xvfb.log)")
        }
        display = ":" + number
        // The bus passes its environment to what it activates: dunst finds the display through it.
        var busEnvironment = base
        busEnvironment["DISPLAY"] = display
        busEnvironment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        bus = try SpawnedProcess(
            executable: busPath, arguments: ["--session", "--nofork", "--print-address=1"], environment: busEnvironment,
            standardOutput: .pipe, standardError: .file(folder.appendingPathComponent("bus.log").path))
        guard let address = try? bus.firstLine(within: .seconds(15)), address.hasPrefix("unix:") else {
            throw FixtureError("dbus-daemon reported no address (see \(folder.path)/bus.log)")
        }
        busAddress = address
    }

    /// Ends dunst (found through the bus, by process id), the bus and Xvfb, and removes the folder.
    func stop() async {
        if let connection = try? DBusConnection(address: busAddress) {
            let reply = try? await connection.call(
                DBusMethodCall(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                    arguments: [.string("org.freedesktop.Notifications")]), timeout: .seconds(5))
            await connection.close()
            if let pid = reply?.first?.uint32Value, pid > 0 {
                // Not our child (the bus started it): wait for it to be gone, then make sure.
                kill(pid_t(pid), SIGTERM)
                let deadline = ContinuousClock.now.advanced(by: .seconds(5))
                while kill(pid_t(pid), 0) == 0, ContinuousClock.now < deadline, !Self.isZombie(pid_t(pid)) {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                if kill(pid_t(pid), 0) == 0, !Self.isZombie(pid_t(pid)) { kill(pid_t(pid), SIGKILL) }
            }
        }
        await bus.stop()
        await xvfb.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether `pid` has exited and waits for its parent to reap it.
    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Writes a dunstrc whose context menu (`dunstctl context`) runs a script instead of dmenu: the script picks
    /// the first line it is fed that contains `needle` (dunst feeds lines such as
    /// `#Snooze 5 min (Meeting soon) [2,snooze]`). Call it before the first notification: dunst reads its
    /// configuration when the bus starts it.
    func configureDunst(pickingContextLine needle: String) throws {
        let dunst = folder.appendingPathComponent("config/dunst")
        try FileManager.default.createDirectory(at: dunst, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("pick-action.sh")
        try "#!/bin/sh\nexec grep -m1 -F -- '\(needle)'\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        try "[global]\n    dmenu = \(script.path)\n".write(
            to: dunst.appendingPathComponent("dunstrc"), atomically: true, encoding: .utf8)
    }

    /// Runs `dunstctl` against this desktop and returns its standard output.
    @discardableResult
    func dunstctl(_ arguments: String...) async throws -> String {
        let process = TestProcess()
        process.executableURL = SpawnedProcess.executable(named: "dunstctl").map(URL.init(fileURLWithPath:))
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = await offPool { output.fileHandleForReading.readDataToEndOfFile() }
        await process.exited()
        guard process.terminationStatus == 0 else {
            throw FixtureError("dunstctl \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The number of notifications dunst shows now.
    func displayedCount() async throws -> Int {
        try await Int(dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// dunst's history (closed notifications, newest first): summary, body and app name of each.
    func history() async throws -> [HistoryItem] {
        let json = try JSONSerialization.jsonObject(with: Data(await dunstctl("history").utf8))
        guard let root = json as? [String: Any], let data = root["data"] as? [[[String: Any]]] else {
            throw FixtureError("unexpected dunstctl history output")
        }
        return (data.first ?? []).map { entry in
            func text(_ key: String) -> String { (entry[key] as? [String: Any])?["data"] as? String ?? "" }
            return HistoryItem(
                summary: text("summary"), body: text("body"), appName: text("appname"), iconPath: text("icon_path"))
        }
    }

    struct HistoryItem: Equatable {
        var summary: String
        var body: String
        var appName: String
        var iconPath: String = ""
    }

    /// Polls `condition` every 20 ms until it holds, failing after `timeout` (a bound for a broken setup: dunst
    /// answers in milliseconds).
    func waitUntil(
        _ what: String, within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw FixtureError("timed out waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The first element of `stream`, waiting at most `timeout` (a bound, not a delay: the answer normally comes in
/// milliseconds).
func firstElement<Element: Sendable>(
    of stream: AsyncStream<Element>, within timeout: Duration = .seconds(10)
) async throws -> Element? {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw FixtureError("nothing arrived within \(timeout)")
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
