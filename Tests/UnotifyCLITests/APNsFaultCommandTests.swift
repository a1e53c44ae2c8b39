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
}
