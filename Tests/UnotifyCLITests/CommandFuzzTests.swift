import Foundation
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// Every subcommand's options fed random and extreme values, as a careless user or a buggy script would: the process
/// never traps or hangs, ends with a known status, and a refusal is one line on stderr with the store unchanged.
@Suite("unotify under random and extreme values", .serialized)
struct CommandFuzzTests {
    /// Values that break naive parsing: not-a-number, infinities, overflow, negatives, hexadecimal, empty, blank,
    /// very long, combining marks and emoji, a bell, separators.
    static let extremes = [
        "nan", "inf", "-inf", "1e309", "-1", "-0.5", "0", "", " ", "9223372036854775808", "-9223372036854775809",
        "0x10", String(repeating: "9", count: 400), String(repeating: "x", count: 5_000), "e\u{301}🙂", "--",
        "1,2,3", "a=b", "\u{7}", "NaN", "+Infinity", "1e-320", "91", "-181",
    ]

    /// Command lines with `§` where the value goes. `FILE` is a valid push payload, `CSV` a track whose first
    /// latitude is the value.
    static let templates: [[String]] = [
        ["add", "--in", "§"], ["add", "--at", "§"], ["add", "--calendar", "hour=§"], ["add", "--calendar", "§"],
        ["add", "--in", "60", "--badge", "§"], ["add", "--in", "60", "--missed", "§"],
        ["add", "--in", "60", "--time-zone", "§", "--calendar", "hour=1"], ["add", "--region", "§"],
        ["add", "--in", "60", "--user-info", "§"], ["add", "--in", "60", "--app", "§"],
        ["add", "--in", "60", "--interruption-level", "§"], ["add", "--in", "60", "--sound", "§"],
        ["list", "--app", "§"], ["delivered", "--app", "§"], ["badge", "§"], ["history", "--limit", "§"],
        ["history", "--limit=§"], ["trigger", "next", "--in", "§"], ["trigger", "next", "--in", "60", "--count=§"],
        ["trigger", "next", "--calendar", "hour=1", "--after", "§"], ["watch", "--for", "§"], ["watch", "--for=§"],
        ["token", "--app", "§"], ["push", "§", "FILE"], ["location", "set", "§", "2.3"],
        ["location", "set", "48.8", "§"], ["location", "set", "48.8", "2.3", "--accuracy=§"],
        ["location", "replay", "CSV", "--speed=§"], ["location", "replay", "CSV"], ["config", "set", "pending-cap", "§"],
        ["config", "set", "authorization", "§"], ["authorize", "--grant", "--app", "§"],
        ["authorize", "--grant", "--options", "§"], ["respond", "§", "--action", "x"],
        ["launch-command", "--app", "§", "--", "/bin/true"], ["remove", "§"], ["status", "--socket", "§"],
    ]

    @Test("no trap, no hang, a known status; a refusal is one line and leaves the store as it was")
    func fuzz() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let payload = folder.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":"hi"}}"#.utf8).write(to: payload)
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_PRESENTER": "terminal"]
        _ = try await runToEnd(["add", "--in", "1h", "--id", "seed"], environment: environment)
        var generator = SeededGenerator(seed: 0x5EED_F022)
        var runs: [[String]] = []
        for template in Self.templates {
            // Three values always, three more drawn at random, different each seed.
            var values = ["nan", "", "1e309"]
            for _ in 0..<3 { values.append(Self.extremes.randomElement(using: &generator)!) }
            for value in values {
                var csv = "CSV"
                if template.contains("CSV") {
                    let url = folder.appendingPathComponent("track-\(runs.count).csv")
                    let latitude = template.last == "CSV" ? value : "48.8"
                    try Data("t,lat,lon\n0,\(latitude),2.3\n1,48.9,2.3\n".utf8).write(to: url)
                    csv = url.path
                }
                runs.append(template.map { $0 == "§" ? value : $0 == "FILE" ? payload.path : $0 == "CSV" ? csv : $0 }
                    .map { $0.replacingOccurrences(of: "hour=§", with: "hour=\(value)") })
            }
        }
        var failures: [String] = []
        for arguments in runs {
            let before = try await Self.snapshot(store)
            let command = try RunningCommand(arguments, environment: environment)
            let finished = await command.wait(upTo: 20) { _, _ in !command.process.isRunning }
            if !finished { await command.kill9() }
            await command.waitForExit()
            // The last of standard error may still be on its way from the pipe.
            _ = await command.wait(upTo: 1) { _, err in command.process.terminationStatus == 0 || err.hasSuffix("\n") }
            let shown = arguments.map { $0.count > 40 ? String($0.prefix(20)) + "…(\($0.count))" : $0 }.joined(separator: " ")
            let status = command.process.terminationStatus
            guard finished else {
                failures.append("hung: \(shown)")
                continue
            }
            guard command.process.terminationReason == .exit else {
                failures.append("signal \(status): \(shown)")
                continue
            }
            guard [0, 1, 64, 65].contains(status) else {
                failures.append("status \(status): \(shown)")
                continue
            }
            guard status != 0 else { continue }
            let lines = command.stderr.split(separator: "\n").filter { !$0.isEmpty }
            if lines.count != 1 { failures.append("\(lines.count) lines on stderr: \(shown)\n\(command.stderr.prefix(600))") }
            if try await Self.snapshot(store) != before { failures.append("the store changed on a refusal: \(shown)") }
        }
        #expect(runs.count > 200)
        #expect(failures.isEmpty, "\(failures.count) of \(runs.count):\n\(failures.joined(separator: "\n"))")
    }

    /// What a refused command must not change: rows per table and the store's settings.
    static func snapshot(_ path: String) async throws -> String {
        let store = try SQLiteNotificationStore(readOnlyAt: path)
        let counts = try store.check(thorough: false).counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return counts.joined(separator: ",") + " \(try await store.policy())"
    }
}
