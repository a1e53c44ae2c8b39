import Foundation
import Testing

/// The example walk: Trocadéro → Eiffel Tower → Champ de Mars, 25 fixes 50 m apart (Examples/LocationReplay).
private let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples/LocationReplay")

/// The two requests of the demo: entering and leaving a 150 m circle around the tower.
private let towerRequests = [
    [
        "add", "--region", "48.8584,2.2945,150", "--region-id", "tower", "--on-entry", "--title", "At the tower",
        "--id", "arrive",
    ],
    [
        "add", "--region", "48.8584,2.2945,150", "--region-id", "tower", "--on-exit", "--title", "Left the tower",
        "--id", "leave",
    ],
]

/// The text between the line of fix `number` and the next fix line.
private func afterFix(_ number: Int, in output: String) -> String {
    guard let start = output.range(of: "fix \(number) ") else { return "" }
    let rest = output[start.upperBound...]
    let end = rest.range(of: "\nfix ")?.lowerBound ?? rest.endIndex
    return String(rest[..<end])
}

@Suite("unotify location end to end", .serialized)
struct LocationEndToEndTests {
    @Test("embedded: replaying the GPX walk delivers the entry at fix 11 and the exit at fix 17, once each")
    func embeddedReplay() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_PRESENTER": "terminal"]
        for request in towerRequests { _ = try await runToEnd(request, environment: environment) }
        let listed = try await runToEnd(["list"], environment: environment)
        #expect(listed.contains("region tower"))
        let output = try await runToEnd(
            ["location", "replay", examples.appendingPathComponent("walk.gpx").path, "--speed", "0"],
            environment: environment)
        #expect(afterFix(11, in: output).contains("│ At the tower"), "\(output)")
        #expect(afterFix(11, in: output).contains("entered tower (local.unotify/arrive"))
        #expect(afterFix(17, in: output).contains("│ Left the tower"), "\(output)")
        #expect(output.components(separatedBy: "│ At the tower").count == 2)
        #expect(output.components(separatedBy: "│ Left the tower").count == 2)
        #expect(try await runToEnd(["list"], environment: environment).contains("no pending requests"))
        let history = try await runToEnd(["history", "--json"], environment: environment)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [[String: Any]])
        #expect(Set(entries.compactMap { $0["identifier"] as? String }) == ["arrive", "leave"])
    }

    @Test("embedded: `location set` by hand, a repeating region, and bad input")
    func embeddedSet() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_PRESENTER": "terminal"]
        _ = try await runToEnd(
            ["add", "--region", "-33.8568,151.2153,200", "--repeats", "--title", "Opera", "--id", "opera"],
            environment: environment)
        // Known outside first (a new process each time: the region's state is in the store, the fix is not).
        #expect(
            try await runToEnd(["location", "set", "-33.87", "151.2153"], environment: environment).contains(
                "no region crossed"))
        let entered = try await runToEnd(["location", "set", "-33.8568,151.2155"], environment: environment)
        #expect(entered.contains("entered region") && entered.contains("│ Opera"), "\(entered)")
        let left = try await runToEnd(["location", "set", "--", "-33.87", "151.2153"], environment: environment)
        #expect(left.contains("left region") && left.contains("│ Opera"), "\(left)")
        #expect(try await runToEnd(["list"], environment: environment).contains("opera"))
        let bad = try RunningCommand(["add", "--region", "1,2", "--title", "x"], environment: environment)
        await bad.waitForExit()
        #expect(bad.process.terminationStatus != 0)
        #expect(await bad.wait(upTo: 1) { _, err in err.contains("cannot read the region") })
    }

    @Test("with unotifyd: a replayed CSV track updates the daemon's regions and the daemon delivers entry and exit")
    func daemonReplay() async throws {
        let daemon = DaemonProcess(arguments: ["--presenter", "terminal"])
        try await daemon.start()
        defer { Task { await daemon.stop() } }
        let environment = daemon.environment.merging(["OPENUN_MODE": "daemon"]) { $1 }
        for request in towerRequests { _ = try await runToEnd(request, environment: environment) }
        let output = try await runToEnd(
            ["location", "replay", examples.appendingPathComponent("walk.csv").path, "--speed", "100"],
            environment: environment)
        #expect(afterFix(11, in: output).contains("entered tower (local.unotify/arrive"), "\(output)")
        #expect(afterFix(17, in: output).contains("left tower (local.unotify/leave"), "\(output)")
        #expect(!output.contains("│ At the tower"), "the daemon delivers, not the client")
        #expect(
            await RunningCommand.poll(upTo: 10) {
                daemon.output.contains("│ At the tower") && daemon.output.contains("│ Left the tower")
            }, "\(daemon.output)")
        let arrived = try #require(daemon.output.range(of: "│ At the tower"))
        let left = try #require(daemon.output.range(of: "│ Left the tower"))
        #expect(arrived.lowerBound < left.lowerBound)
        #expect(try await runToEnd(["list"], environment: environment).contains("no pending requests"))
    }
}

extension RunningCommand {
    /// Waits (bounded) until a condition holds.
    static func poll(upTo seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
