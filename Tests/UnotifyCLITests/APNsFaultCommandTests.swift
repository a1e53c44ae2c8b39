import Foundation
import Testing

/// `unotify apns fault`: rules kept in the store, added, listed and cleared; bad ones refused in one line.
@Suite("unotify apns fault")
struct APNsFaultCommandTests {
    @Test("add, replace by id, list (text and JSON), clear one, clear all")
    func roundTrip() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        #expect(try await runToEnd(["apns", "fault"], environment: environment).contains("no fault rules"))
        _ = try await runToEnd(
            ["apns", "fault", "add", "--reason", "TooManyRequests", "--topic", "com.example.app", "--fraction", "0.25", "--seed", "7", "--id", "busy"],
            environment: environment)
        _ = try await runToEnd(["apns", "fault", "add", "--delay", "250ms", "--reason", "ServiceUnavailable"], environment: environment)
        _ = try await runToEnd(["apns", "fault", "add", "--reason", "Shutdown", "--id", "busy"], environment: environment)
        let listed = try await runToEnd(["--store", store, "apns", "fault", "list"], environment: environment)
        #expect(listed == "rule-2: 503 ServiceUnavailable, after 0.25 s, any topic\nbusy: 503 Shutdown, any topic\n", "\(listed)")
        let json = try await runToEnd(["apns", "fault", "list", "--json"], environment: environment)
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["rule-2", "busy"])
        #expect(rules.first?["delay"] as? Double == 0.25 && rules.first?["status"] as? Int == 503)
        _ = try await runToEnd(["apns", "fault", "clear", "busy"], environment: environment)
        #expect(try await runToEnd(["apns", "fault", "list"], environment: environment).hasPrefix("rule-2:"))
        #expect(try await runToEnd(["apns", "fault", "clear"], environment: environment) == "removed 1 fault rule\n")
    }

    @Test(
        "a rule that cannot work is one line and changes nothing",
        arguments: [
            ["--reason", "TooManyRequest"], ["--fraction", "0.5"], ["--reason", "Shutdown", "--fraction", "1.5"],
            ["--delay", "soon", "--reason", "Shutdown"], ["--reason", "Shutdown", "--token", "not-hex"],
        ])
    func refused(arguments: [String]) async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        let command = try RunningCommand(["apns", "fault", "add"] + arguments, environment: environment)
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.hasSuffix("\n") }
        #expect(command.process.terminationStatus != 0)
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(try await runToEnd(["apns", "fault", "list"], environment: environment).contains("no fault rules"))
    }

    @Test("--hold, --close-after and --shutdown make rules of their kind; they exclude each other")
    func kinds() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        _ = try await runToEnd(["apns", "fault", "add", "--hold", "--topic", "com.example.app", "--id", "stuck"], environment: environment)
        _ = try await runToEnd(["apns", "fault", "add", "--close-after", "3", "--id", "flaky"], environment: environment)
        _ = try await runToEnd(["apns", "fault", "add", "--shutdown", "--id", "down"], environment: environment)
        let listed = try await runToEnd(["apns", "fault", "list"], environment: environment)
        #expect(
            listed == """
                stuck: never answers, topic com.example.app
                flaky: closes the connection after 3 (GOAWAY Shutdown), any topic
                down: 503 Shutdown, GOAWAY, new connections closed, any topic

                """, "\(listed)")
        let json = try await runToEnd(["apns", "fault", "list", "--json"], environment: environment)
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rules.map { $0["action"] as? String } == ["hold", "close", "shutdown"])
        #expect(rules[1]["count"] as? Int == 3)
        let both = try RunningCommand(["apns", "fault", "add", "--hold", "--shutdown"], environment: environment)
        await both.waitForExit()
        #expect(both.process.terminationStatus != 0)
    }

    @Test("load replaces the rules with a file's; a file with bad lines names each by number and changes nothing")
    func load() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        _ = try await runToEnd(["apns", "fault", "add", "--reason", "Shutdown", "--id", "old"], environment: environment)
        let good = folder.appendingPathComponent("rules.txt").path
        try """
            # 429 for a quarter of one app's requests, the same ones on every run
            --id busy --reason TooManyRequests --topic com.example.app --fraction 0.25 --seed 7

            --id flaky --close-after 10 --reason "Shutdown"
            """.write(toFile: good, atomically: true, encoding: .utf8)
        let loaded = try await runToEnd(["apns", "fault", "load", good], environment: environment)
        #expect(loaded.hasPrefix("loaded 2 fault rules from \(good)\n"), "\(loaded)")
        let listed = try await runToEnd(["apns", "fault", "list"], environment: environment)
        #expect(listed.split(separator: "\n").map { $0.prefix { $0 != ":" } } == ["busy", "flaky"], "\(listed)")

        let bad = folder.appendingPathComponent("bad.txt").path
        try """
            --id ok --reason Unregistered
            --id nope --reason TooManyRequest
            # a comment
            --delay soon --reason Shutdown
            --id ok --reason BadTopic
            --frobnicate
            """.write(toFile: bad, atomically: true, encoding: .utf8)
        let command = try RunningCommand(["apns", "fault", "load", bad], environment: environment)
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.contains("no rule was changed") }
        #expect(command.process.terminationStatus != 0)
        let lines = command.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("bad.txt:2: ") && $0.contains("unknown reason 'TooManyRequest'") }, "\(lines)")
        #expect(lines.contains { $0.contains("bad.txt:4: ") && $0.contains("soon") }, "\(lines)")
        #expect(lines.contains { $0.contains("bad.txt:5: ") && $0.contains("a second rule with the id 'ok'") }, "\(lines)")
        #expect(lines.contains { $0.contains("bad.txt:6: ") && $0.contains("frobnicate") }, "\(lines)")
        #expect(!lines.contains { $0.contains("bad.txt:1:") || $0.contains("bad.txt:3:") }, "\(lines)")
        #expect(try await runToEnd(["apns", "fault", "list"], environment: environment) == listed)
    }
}
