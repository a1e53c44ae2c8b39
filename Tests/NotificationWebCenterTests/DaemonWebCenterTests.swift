import ArgumentParser
import Foundation
import NotificationDaemon
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import NotificationWebCenter
import OpenUserNotificationsTesting
import Testing
import TestPrograms

/// The daemon serves the center on a real port, publishes its link beside the socket, and `unotify center` prints it.
@Suite("Web center in the daemon", .serialized)
struct DaemonWebCenterTests {
    /// A daemon with its socket at `socket` and the web center on a free loopback port, over an in-memory store, its
    /// engine loop off and its clock manual.
    static func makeDaemon(socket: String) throws -> (NotificationDaemon, ManualNotificationClock) {
        var configuration = DaemonConfiguration(socketPath: socket, storePath: "")
        configuration.runsEngineLoop = false
        configuration.locksStore = false
        configuration.webCenter = WebCenterConfiguration(address: try WebCenterAddress(parsing: "127.0.0.1:0"))
        let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
        let daemon = NotificationDaemon(
            configuration: configuration, store: try SQLiteNotificationStore(), clock: clock,
            presenter: RecordingPresenter())
        return (daemon, clock)
    }

    @Test(
        "unotifyd writes the secret (0600) and URL once the center listens; the link works over HTTP; unotify center prints it; stopping ends open event streams and removes the files"
    )
    func servesAndPublishes() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotify-web-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("run/d.sock").path
        let (daemon, clock) = try Self.makeDaemon(socket: socket)
        try await daemon.scheduler.setAuthorization(appID: "com.example.chat", status: .authorized, options: [.alert])
        var content = NotificationPayload()
        content.title = "Served over real HTTP"
        try await daemon.scheduler.add(
            RequestSpec(identifier: "n1", content: content, trigger: .timeInterval(1, repeats: false)),
            appID: "com.example.chat")
        clock.advance(by: 1)
        await daemon.scheduler.deliverDue()

        let running = Task { try await daemon.run() }
        let files = WebCenterFiles(socketPath: socket)
        let deadline = Date().addingTimeInterval(30)
        while (try? files.read()) == nil {
            try #require(Date() < deadline, "the daemon did not publish the web center's link")
            try await Task.sleep(for: .milliseconds(20))
        }
        let contents = try files.read()
        #expect(contents.baseURL.hasPrefix("http://127.0.0.1:"))
        let mode = try FileManager.default.attributesOfItem(atPath: files.tokenPath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        // Without the secret: 401. With the link: a cookie, then the page.
        let denied = try await curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", contents.baseURL])
        #expect(denied == "401")
        let jar = folder.appendingPathComponent("cookies").path
        let opened = try await curl(["-s", "-L", "-c", jar, "-b", jar, contents.link])
        #expect(opened.contains("Served over real HTTP"))
        let cookies = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(cookies.contains("#HttpOnly_127.0.0.1"))
        #expect(!cookies.contains(contents.secret.hex))

        // `unotify center` reads the files.
        let printed = try await run(try builtExecutable("unotify"), ["center", "--socket", socket])
        #expect(printed.status == 0)
        #expect(printed.output.trimmingCharacters(in: .whitespacesAndNewlines) == contents.link)

        // An open event stream (a browser tab) does not hold the daemon's stop up: it ends at once.
        let stream = try LineReadingProcess(
            "/usr/bin/curl",
            [
                "-s", "-N", "--max-time", "60", "-H", "Authorization: Bearer \(contents.secret.hex)",
                contents.baseURL + "events",
            ])
        defer { stream.kill() }
        try #require(await stream.waitForLine("retry: 2000", upTo: 20), "no event stream: \(stream.errors)")
        let stopStarted = Date()
        running.cancel()
        _ = try? await running.value
        #expect(Date().timeIntervalSince(stopStarted) < 10)
        #expect(await stream.exitStatus() == 0, "curl: \(stream.errors)")
        #expect(!FileManager.default.fileExists(atPath: files.urlPath))
        #expect(!FileManager.default.fileExists(atPath: files.tokenPath))
        let stopped = try await run(try builtExecutable("unotify"), ["center", "--socket", socket])
        #expect(stopped.status != 0)
        #expect(stopped.errors.contains("unotifyd is not running"))
    }

    @Test("--web-address takes host:port or off; a non-loopback address needs --web-allow-remote")
    func options() throws {
        _ = try DaemonOptions.parse(["--web-address", "127.0.0.1:0"])
        _ = try DaemonOptions.parse(["--web-address", "off"])
        _ = try DaemonOptions.parse(["--web-address", "0.0.0.0:2198", "--web-allow-remote"])
        for arguments in [
            ["--web-address", "0.0.0.0:2198"], ["--web-address", "nowhere"], ["--web-address", "[::1]"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try DaemonOptions.parse(arguments) }
        }
        do {
            _ = try DaemonOptions.parse(["--web-address", "0.0.0.0:2198"])
            Issue.record("a non-loopback address was accepted without --web-allow-remote")
        } catch {
            #expect(DaemonOptions.message(for: error).contains("--web-allow-remote"))
        }
    }

    /// Runs curl and returns its standard output.
    private func curl(_ arguments: [String]) async throws -> String {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/curl"), ["--max-time", "20"] + arguments)
        #expect(result.status == 0, "curl \(arguments): \(result.errors)")
        return result.output
    }
}

/// Runs a program to its end, off the concurrency pool, and returns its status and output.
func run(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
    let process = TestProcess()
    process.executableURL = executable
    process.arguments = arguments
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errors)
    }
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    await process.exited()
    return (
        process.terminationStatus, try String(contentsOf: output, encoding: .utf8),
        try String(contentsOf: errors, encoding: .utf8)
    )
}

/// A built executable of the package, next to the test bundle or in .build/debug.
func builtExecutable(_ name: String) throws -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    let debug = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)")
    try #require(FileManager.default.isExecutableFile(atPath: debug.path), "build \(name) first")
    return debug
}
