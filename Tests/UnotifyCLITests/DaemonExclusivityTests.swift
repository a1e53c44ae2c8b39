import Foundation
import Testing

/// One daemon per store, and a clear word when the store cannot be served.
@Suite("unotifyd: one per store")
struct DaemonExclusivityTests {
    @Test("a second unotifyd on the same store refuses in one line naming the first (pid, socket), status 75")
    func secondDaemonRefuses() async throws {
        let first = DaemonProcess()
        defer { Task { await first.stop() } }
        try await first.start()
        let secondSocket = first.folder.appendingPathComponent("second.sock").path
        let second = try RunningCommand(
            ["--apns-address", "off", "--web-address", "off", "--socket", secondSocket], environment: ["OPENUN_STORE": first.store],
            executable: "unotifyd")
        await second.waitForExit()
        _ = await second.wait(upTo: 1) { _, err in err.contains("\n") }
        #expect(second.process.terminationStatus == 75)
        let lines = second.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(second.stderr)")
        #expect(second.stderr.contains("another unotifyd serves the store at \(first.store)"))
        #expect(second.stderr.contains(first.socket))
        #expect(second.stderr.contains("pid "))
        // The first keeps its socket and keeps serving; the second never bound its own.
        #expect(first.isRunning)
        #expect(FileManager.default.fileExists(atPath: first.socket))
        #expect(!FileManager.default.fileExists(atPath: secondSocket))
        _ = try await runToEnd(["list"], environment: first.environment.merging(["OPENUN_MODE": "daemon"]) { $1 })
    }

    @Test("after the first daemon is killed (-9), a new one starts on the store: the lock dies with its holder")
    func lockDiesWithHolder() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        await daemon.kill9()
        try await daemon.start()
        #expect(daemon.isRunning)
    }

    @Test(
        "a damaged store (garbage, or a file cut in half): one line naming the store and the recovery commands, status 65",
        arguments: ["garbage", "truncated"])
    func damagedStore(kind: String) async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try FileManager.default.createDirectory(at: daemon.folder, withIntermediateDirectories: true)
        if kind == "garbage" {
            try Data(repeating: 0x5A, count: 64 * 1024).write(to: URL(fileURLWithPath: daemon.store))
        } else {
            // A real store with requests in its main file, cut in half behind SQLite's back.
            let (path, folder) = try await checkpointedStore(count: 60)
            defer { try? FileManager.default.removeItem(at: folder) }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: daemon.store))
        }
        let command = try RunningCommand(
            ["--apns-address", "off", "--web-address", "off", "--socket", daemon.socket], environment: ["OPENUN_STORE": daemon.store],
            executable: "unotifyd")
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.contains("\n") }
        #expect(command.process.terminationStatus == 65, "stderr: \(command.stderr)")
        #expect(command.stderr.split(separator: "\n").count == 1, "stderr: \(command.stderr)")
        #expect(command.stderr.contains("is damaged"))
        #expect(command.stderr.contains("unotify store check"))
        #expect(!command.stderr.contains("Usage"))
    }
}
