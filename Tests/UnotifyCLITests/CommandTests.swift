import ArgumentParser
import Foundation
import Synchronization
import Testing

@testable import UnotifyCLI

/// Runs `unotify` in-process, as its entry point does, and returns what it printed.
func execute(_ arguments: [String]) async throws -> String {
    let output = Mutex("")
    try await CLIOutput.$sink.withValue({ text in output.withLock { $0 += text } }) {
        var command = try Unotify.parseAsRoot(Unotify.movingGlobalOptions(in: arguments))
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
        "global options before the subcommand move behind it; anything else stays where it is",
        arguments: [
            (["--app", "com.example.app", "add", "--in", "1h"], ["add", "--app", "com.example.app", "--in", "1h"]),
            (["--json", "--store", "/tmp/s", "--verbose", "list"], ["list", "--json", "--store", "/tmp/s", "--verbose"]),
            (["--mode", "embedded", "--socket", "/tmp/d", "token"], ["token", "--mode", "embedded", "--socket", "/tmp/d"]),
            (["--app=com.example.app", "categories", "set", "[]"], ["categories", "set", "--app=com.example.app", "[]"]),
            (["location", "--app", "a", "set", "1", "2"], ["location", "set", "--app", "a", "1", "2"]),
            // A value that is a subcommand's name is still the value.
            (["--app", "add", "add", "--title", "x"], ["add", "--app", "add", "--title", "x"]),
            (["--app", "list", "--store", "remove", "list"], ["list", "--app", "list", "--store", "remove"]),
            // A missing value is left for the parser to report.
            (["--app", "--json", "add"], ["add", "--app", "--json"]),
            // Unchanged: already behind, no command to run, or something else first.
            (["add", "--app", "a", "--json"], ["add", "--app", "a", "--json"]),
            (["--app", "a"], ["--app", "a"]), (["--app", "add"], ["--app", "add"]), (["--help"], ["--help"]),
            (["--app", "a", "--help"], ["--app", "a", "--help"]),
            (["--app", "a", "categories"], ["--app", "a", "categories"]), (["--title", "x", "add"], ["--title", "x", "add"]),
            (["--", "--app", "a", "add"], ["--", "--app", "a", "add"]), (["--json", "help", "add"], ["--json", "help", "add"]),
        ] as [([String], [String])])
    func globalOptionsMove(arguments: [String], expected: [String]) {
        #expect(Unotify.movingGlobalOptions(in: arguments) == expected)
    }

    @Test("the options the entry point moves are exactly GlobalOptions'")
    func globalOptionNames() {
        let help = GlobalOptions.helpMessage(columns: 200)
        let named = Set(help.matches(of: /--[a-z-]+/).map { String($0.output) }).subtracting(["--help"])
        #expect(named == GlobalOptions.valueOptionNames.union(GlobalOptions.flagNames))
        for name in GlobalOptions.valueOptionNames {
            #expect(throws: Never.self) { _ = try GlobalOptions.parse([name, name == "--mode" ? "embedded" : "x"]) }
        }
        for name in GlobalOptions.flagNames { #expect(throws: Never.self) { _ = try GlobalOptions.parse([name]) } }
    }

    @Test("global options work before the subcommand as after it; help and errors stay the parser's")
    func globalOptionsFirst() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try await execute(["--app", "com.example.cli", "--store", store, "add", "--in", "1h", "--id", "a"])
        #expect(added.hasPrefix("a 20"))
        _ = try await execute(["--store=\(store)", "add", "--app", "com.example.cli", "--in", "2h", "--id", "b"])
        let listed = try await execute(["--json", "--app", "com.example.cli", "--store", store, "list"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        #expect(json.compactMap { $0["identifier"] as? String }.sorted() == ["a", "b"])
        // An app named like a subcommand.
        _ = try await execute(["--app", "list", "--store", store, "add", "--in", "1h", "--id", "c"])
        #expect(try await execute(["list", "--app", "list", "--store", store]).contains("  c  "))

        /// What the parser says (and how it exits) for a command line.
        func failure(_ arguments: [String]) async throws -> (message: String, code: ExitCode) {
            let error = try #require(await #expect(throws: (any Error).self) { try await execute(arguments) })
            return (Unotify.message(for: error), Unotify.exitCode(for: error))
        }
        let help = try await failure(["--app", "a", "add", "--help"])
        #expect(help.code == .success && help.message.contains("Schedule a notification."))
        #expect(try await failure(["--mode", "bogus", "list"]).message.contains("'--mode"))
        #expect(try await failure(["--app", "--json", "list"]).message.contains("Missing value for '--app"))
    }

    @Test(
        "an out-of-range calendar component is named with its range, not reported as a trigger without dates",
        arguments: [
            (["add", "--calendar", "hour=25"], "hour=25 is out of range: hour takes 0...23"),
            (["add", "--calendar", "hour=7,minute=60"], "minute=60 is out of range: minute takes 0...59"),
            (["add", "--calendar", "weekday=8,hour=9"], "weekday=8 is out of range: weekday takes 1...7"),
            (["add", "--calendar", "weekday=0"], "weekday=0 is out of range: weekday takes 1...7"),
            (["add", "--calendar", "month=13,day=1"], "month=13 is out of range: month takes 1...12"),
            (["add", "--calendar", "day=32", "--repeats"], "day=32 is out of range: day takes 1...31"),
            (["add", "--calendar", "second=60"], "second=60 is out of range: second takes 0...59"),
            (["add", "--calendar", "hour=-1"], "hour=-1 is out of range: hour takes 0...23"),
            (["add", "--calendar", "weekdayOrdinal=6"], "weekdayOrdinal=6 is out of range: weekdayOrdinal takes 1...5"),
            (["add", "--at", "2026-03-08T24:00"], "hour=24 is out of range: hour takes 0...23"),
            (["add", "--at", "2026-13-08T10:00"], "month=13 is out of range: month takes 1...12"),
            (["trigger", "next", "--calendar", "hour=25"], "hour=25 is out of range: hour takes 0...23"),
            (["trigger", "next", "--calendar", "minute=60"], "minute=60 is out of range: minute takes 0...59"),
            (["trigger", "next", "--calendar", "weekday=8"], "weekday=8 is out of range: weekday takes 1...7"),
        ] as [([String], String)])
    func calendarOutOfRange(arguments: [String], expected: String) async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storeOption = arguments.first == "add" ? ["--store", store] : []
        let error = await #expect(throws: (any Error).self) { try await execute(arguments + storeOption) }
        #expect(error.map { Unotify.message(for: $0) } == expected)
    }

    @Test("the ends of each component's range are accepted")
    func calendarRangeEnds() async throws {
        let after = ["--time-zone", "UTC", "--after", "2026-01-05T00:00:00Z"]
        #expect(
            try await execute(["trigger", "next", "--calendar", "weekday=7,hour=23,minute=59,second=59"] + after)
                == "2026-01-10T23:59:59Z\n")
        #expect(
            try await execute(["trigger", "next", "--calendar", "month=12,day=31,hour=0,minute=0,second=0"] + after)
                == "2026-12-31T00:00:00Z\n")
        #expect(try await execute(["trigger", "next", "--calendar", "weekday=1,hour=0"] + after) == "2026-01-11T00:00:00Z\n")
    }

    @Test("token's warning for an app that may not notify gives a grant line the shell reads back unchanged")
    func tokenWarningQuotes() throws {
        let global = try GlobalOptions.parse(["--app", "com.example.app", "--store", "/tmp/my store/it's.sqlite"])
        let warning = Token.unauthorizedWarning(appID: "com.example.app", status: .notDetermined, global)
        #expect(
            warning.hasSuffix(
                #"grant it with: unotify authorize --grant --app com.example.app --store '/tmp/my store/it'\''s.sqlite'"#))
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
