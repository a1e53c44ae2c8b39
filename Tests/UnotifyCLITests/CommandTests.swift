import ArgumentParser
import Foundation
import Synchronization
import Testing

@testable import UnotifyCLI

/// Runs `unotify` in-process and returns what it printed.
func execute(_ arguments: [String]) async throws -> String {
    let output = Mutex("")
    try await CLIOutput.$sink.withValue({ text in output.withLock { $0 += text } }) {
        var command = try Unotify.parseAsRoot(arguments)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }
    return output.withLock { $0 }
}

/// A store file in a fresh temporary folder.
func temporaryStore() -> (path: String, folder: URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unotify-\(UUID().uuidString)")
    return (folder.appendingPathComponent("store.sqlite").path, folder)
}

@Suite("unotify commands")
struct CommandTests {
    @Test(
        "trigger next prints fire dates in ISO 8601 UTC, one a line",
        arguments: [
            (
                ["--calendar", "hour=7,minute=0", "--time-zone", "America/New_York", "--after", "2026-03-07T12:00:00Z", "--count", "3"],
                "2026-03-08T11:00:00Z\n2026-03-09T11:00:00Z\n2026-03-10T11:00:00Z\n"
            ),
            (
                ["--calendar", "weekday=1,hour=8", "--time-zone", "UTC", "--after", "2026-01-05T00:00:00Z", "--count", "2"],
                "2026-01-11T08:00:00Z\n2026-01-18T08:00:00Z\n"
            ),
            (["--in", "90s", "--after", "2026-01-05T00:00:00Z", "--count", "2"], "2026-01-05T00:01:30Z\n2026-01-05T00:03:00Z\n"),
            (["--at", "2026-03-08T11:00:00Z", "--after", "2026-01-05T00:00:00Z"], "2026-03-08T11:00:00Z\n"),
            (
                ["--calendar", "day=31,hour=9", "--time-zone", "UTC", "--after", "2026-05-31T10:00:00Z", "--count", "2"],
                "2026-07-01T00:00:00Z\n2026-07-31T09:00:00Z\n"
            ),
            (
                ["--calendar", "day=31,hour=9", "--time-zone", "UTC", "--strict", "--after", "2026-05-31T10:00:00Z", "--count", "2"],
                "2026-07-31T09:00:00Z\n2026-08-31T09:00:00Z\n"
            ),
        ] as [([String], String)])
    func triggerNext(arguments: [String], expected: String) async throws {
        #expect(try await execute(["trigger", "next"] + arguments) == expected)
    }

    @Test(
        "trigger next explains that a location trigger has no dates and what makes it fire",
        arguments: [
            (
                ["--region", "48.8584,2.2945,150", "--region-id", "tower", "--on-entry"],
                "a location trigger has no fire dates: it fires once, on entering the 150 m circle around "
                    + "48.8584,2.2945 (region 'tower'), when a location fix shows the crossing "
                    + "(unotify location set <latitude> <longitude>)"
            ),
            (
                ["--region", "-33.8568,151.2153,2500.5", "--repeats"],
                "a location trigger has no fire dates: it fires every time, on entering or leaving the 2500.5 m circle "
                    + "around -33.8568,151.2153 (region 'region'), when a location fix shows the crossing "
                    + "(unotify location set <latitude> <longitude>)"
            ),
            (
                ["--region", "0,0,10", "--on-exit", "--after", "2026-01-05T00:00:00Z"],
                "a location trigger has no fire dates: it fires once, on leaving the 10 m circle around 0,0 "
                    + "(region 'region'), when a location fix shows the crossing "
                    + "(unotify location set <latitude> <longitude>)"
            ),
        ] as [([String], String)])
    func triggerNextRegion(arguments: [String], expected: String) async throws {
        let error = await #expect(throws: CLIError.self) { try await execute(["trigger", "next"] + arguments) }
        #expect(error?.description == expected)
        #expect(error.map { Unotify.message(for: $0) } == expected)
    }

    @Test("add, list, remove and authorize work on a store file")
    func addListRemove() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = ["--store", store, "--app", "com.example.cli"]
        let added = try await execute(["add", "--in", "1h", "--title", "Stretch", "--id", "stretch", "--user-info", #"{"n": 1}"#] + common)
        #expect(added.hasPrefix("stretch 20"))
        let listed = try await execute(["list", "--json"] + common)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        #expect(json.first?["identifier"] as? String == "stretch")
        #expect((json.first?["userInfo"] as? [String: Any])?["n"] as? Int == 1)
        #expect(try await execute(["authorize"] + common) == "com.example.cli: authorized alert,badge,sound\n")
        _ = try await execute(["remove", "stretch"] + common)
        #expect(try await execute(["list"] + common) == "no pending requests for com.example.cli\n")
        _ = try await execute(["authorize", "--deny"] + common)
        await #expect(throws: CLIError.self) { _ = try await execute(["add", "--in", "1h", "--title", "x"] + common) }
    }

    @Test("categories set replaces the set; respond validates the action")
    func categoriesAndRespond() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = ["--store", store, "--app", "com.example.cli"]
        let json = #"[{"identifier": "todo", "options": ["customDismissAction"], "actions": [{"identifier": "done", "title": "Done"}]}]"#
        _ = try await execute(["categories", "set", json] + common)
        #expect(try await execute(["categories", "list"] + common) == "todo (customDismissAction): done \"Done\"\n")
        _ = try await execute(["add", "--title", "Now", "--id", "now", "--category", "todo"] + common)
        await #expect(throws: CLIError.self) { _ = try await execute(["respond", "now"] + common) }  // not delivered yet
        await #expect(throws: (any Error).self) { _ = try await execute(["categories", "set", "[{}]"] + common) }
    }

    @Test(
        "bad input is one clear error, never a crash",
        arguments: [
            ["add", "--in", "0"], ["add", "--in", "30", "--repeats"], ["add", "--in", "soon"],
            ["add", "--calendar", "hour=seven"], ["add", "--calendar", "fortnight=1"], ["add", "--time-zone", "Mars/Base", "--calendar", "hour=1"],
            ["add", "--user-info", "[1]"], ["add", "--user-info", #"{"a": null}"#], ["add", "--missed", "sometimes"],
            ["add", "--in", "1h", "--at", "2026-01-01T00:00:00Z"], ["add", "--at", "tomorrow"],
            ["add", "--calendar", "year=2001,month=1,day=1"], ["badge", "--", "-3"],
        ] as [[String]])
    func badInput(arguments: [String]) async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try await execute(arguments + ["--store", store])
            Issue.record("accepted \(arguments)")
        } catch {
            let message = Unotify.message(for: error)
            #expect(!message.isEmpty && !message.contains("\n"), "\(message)")
        }
    }
}
