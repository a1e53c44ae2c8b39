import ArgumentParser
import Foundation
import NotificationModel
import Testing

@testable import UnotifyCLI
import TestPrograms

/// `unotify import`: many requests from JSON Lines, with add's options as keys.
@Suite("unotify import")
struct ImportCommandTests {
    /// Writes `lines` to a file in `folder`.
    static func file(_ lines: [String], in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("requests.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("every line becomes a request with add's fields, of the line's app or --app")
    func imports() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.file(
            [
                #"{"id": "standup", "title": "Standup", "calendar": "weekday=2,hour=9", "repeats": true, "user-info": {"room": 4}}"#,
                "",
                #"{"id": "tea", "title": "Tea", "subtitle": "Green", "in": "5m", "badge": 3, "sound": "none", "thread": "drinks"}"#,
                #"{"id": "other", "app": "com.example.other", "title": "Elsewhere", "at": "2030-01-01T08:00:00Z"}"#,
                #"{"id": "local", "title-key": "GREETING", "title-arg": ["Ada"], "in": 3600, "category": "c"}"#.replacingOccurrences(of: "3600", with: "\"1h\""),
            ], in: folder)
        let output = try await execute(["import", path, "--store", store, "--mode", "embedded", "--app", "com.example.app"])
        #expect(output.hasPrefix("imported 4 requests for 2 apps in "), "\(output)")

        let listed = try await execute(["list", "--json", "--store", store, "--mode", "embedded", "--app", "com.example.app"])
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: requests.map { ($0["identifier"] as? String ?? "", $0) })
        #expect(Set(byID.keys) == ["standup", "tea", "local"])
        let tea = try #require(byID["tea"]?["content"] as? [String: Any])
        #expect(tea["subtitle"] as? String == "Green" && tea["badge"] as? Int == 3 && tea["threadIdentifier"] as? String == "drinks")
        let standup = try #require(byID["standup"])
        #expect(((standup["content"] as? [String: Any])?["userInfo"] as? [String: Any])?["room"] as? Int == 4)
        #expect(standup["repeats"] as? Bool == true)
        let other = try await execute(["list", "--store", store, "--mode", "embedded", "--app", "com.example.other"])
        #expect(other.contains("other") && other.contains("2030-01-01T08:00:00Z"), "\(other)")
    }

    @Test("a bad line is reported with its number and nothing is imported; --skip-invalid imports the others")
    func badLines() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.file(
            [
                #"{"id": "ok", "title": "Fine", "in": "1h"}"#,
                #"{"id": "typo", "titel": "Oops", "in": "1h"}"#,
                #"not json"#,
                #"{"id": "hour", "calendar": "hour=25"}"#,
                #"{"id": "short", "in": "30s", "repeats": true}"#,
                #"{"id": "badge", "badge": "three", "in": "1h"}"#,
                #"{"id": "ok2", "title": "Also fine", "in": "2h"}"#,
            ], in: folder)
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        let command = try RunningCommand(["import", path], environment: environment)
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.contains("nothing imported") }
        #expect(command.process.terminationStatus == 65)
        let lines = command.stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("line ") }.map { $0.prefix(7) } == ["line 2:", "line 3:", "line 4:", "line 5:", "line 6:"], "\(command.stderr)")
        #expect(command.stderr.contains("line 2: unknown field 'titel'"))
        #expect(command.stderr.contains("line 4: hour=25 is out of range: hour takes 0...23"))
        #expect(command.stderr.contains("line 6: 'badge' must be a whole number"))
        #expect(command.stderr.contains("nothing imported: 5 bad lines of 7"))
        #expect(try await runToEnd(["list"], environment: environment).contains("no pending requests"))

        let skipped = try await runToEnd(["import", path, "--skip-invalid"], environment: environment)
        #expect(skipped.contains("imported 2 requests") && skipped.contains("5 bad lines skipped"), "\(skipped)")
        let listed = try await runToEnd(["list"], environment: environment)
        #expect(listed.contains("ok") && listed.contains("ok2"))
    }

    @Test("lines parsed in chunks keep their numbers and their order across chunk boundaries")
    func manyChunks() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = (1...9_000).map { #"{"id": "same", "title": "line \#($0)", "in": "1h"}"# }
        for bad in [1, 4_096, 4_097, 9_000] { lines[bad - 1] = #"{"id": 5}"# }
        let path = try Self.file(lines, in: folder)
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        let command = try RunningCommand(["import", path], environment: environment)
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.contains("nothing imported") }
        let numbers = command.stderr.split(separator: "\n").filter { $0.hasPrefix("line ") }.map { $0.split(separator: ":")[0] }
        #expect(numbers == ["line 1", "line 4096", "line 4097", "line 9000"], "\(command.stderr)")
        // With the bad lines skipped, the last good line wins the identifier: order is the file's.
        _ = try await runToEnd(["import", path, "--skip-invalid", "--batch-size", "1000"], environment: environment)
        #expect(try await runToEnd(["list"], environment: environment).contains("line 8999"))
    }

    @Test("with blank and bad lines skipped across chunks, every request keeps its own line's fields and app")
    func skippedLinesAcrossChunks() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two apps alternating; blank and bad lines at and around the chunks' edges (4,096 lines each) leave gaps that
        // the parse closes up, and the slow way (a JSON null) now and then.
        var lines = (1...10_000).map { number in
            let app = number % 2 == 0 ? "com.example.even" : "com.example.odd"
            let extra = number % 7 == 0 ? #", "subtitle": null"# : ""
            return #"{"id": "r\#(number)", "app": "\#(app)", "title": "T\#(number)", "in": "\#(number)m"\#(extra)}"#
        }
        let blank: Set = [2, 4_095, 4_096, 8_193, 9_999]
        let bad: Set = [1, 3, 4_097, 8_192, 10_000]
        for number in blank { lines[number - 1] = number == 2 ? "" : "  " }
        for number in bad { lines[number - 1] = #"{"id": "bad\#(number)", "in": "soon"}"# }
        let path = try Self.file(lines, in: folder)
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_PENDING_CAP": "off"]
        let output = try await runToEnd(
            ["import", path, "--skip-invalid", "--batch-size", "3000"], environment: environment)
        #expect(output.contains("imported 9990 requests for 2 apps"), "\(output)")
        for (app, parity) in [("com.example.even", 0), ("com.example.odd", 1)] {
            let listed = try await runToEnd(["list", "--json", "--app", app], environment: environment)
            let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
            let expected = (1...10_000).filter { $0 % 2 == parity && !blank.contains($0) && !bad.contains($0) }
            #expect(Set(requests.compactMap { $0["identifier"] as? String }) == Set(expected.map { "r\($0)" }))
            let mismatched = requests.filter { request in
                let identifier = request["identifier"] as? String ?? ""
                return (request["content"] as? [String: Any])?["title"] as? String != "T" + identifier.dropFirst()
            }
            #expect(mismatched.isEmpty, "\(mismatched.prefix(3))")
        }
    }

    /// Lines of two apps, the second denied notifications: a batch of lines 1-3 with both, then line 4.
    static func linesWithDeniedApp(in folder: URL) throws -> String {
        try file(
            [
                #"{"id": "a1", "title": "A", "in": "1h"}"#,
                #"{"id": "d1", "app": "com.example.denied", "title": "D", "in": "1h"}"#,
                #"{"id": "a2", "title": "A", "in": "2h"}"#,
                #"{"id": "a3", "title": "A", "in": "3h"}"#,
            ], in: folder)
    }

    @Test("a batch of two apps is one transaction: one app refused, nothing of it is stored, the line named")
    func batchOfTwoAppsRefused() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_BUNDLE_ID": "com.example.app"]
        _ = try await runToEnd(["authorize", "--deny", "--app", "com.example.denied"], environment: environment)
        let path = try Self.linesWithDeniedApp(in: folder)
        let command = try RunningCommand(["import", path, "--batch-size", "3"], environment: environment)
        await command.waitForExit()
        #expect(command.process.terminationStatus != 0)
        #expect(
            command.stderr.contains(
                "stopped at the batch of lines 1-3, of which nothing is stored: line 2: notifications are not allowed "
                    + "for com.example.denied; nothing was imported before it"),
            "\(command.stderr)")
        #expect(try await runToEnd(["list"], environment: environment).contains("no pending requests"))
    }

    @Test("through unotifyd each app's part of a batch is one transaction: the error says which parts were stored")
    func batchPartlyStoredThroughTheDaemon() async throws {
        let daemon = DaemonProcess(arguments: [])
        try await daemon.start()
        defer { Task { await daemon.stop() } }
        let environment = daemon.environment.merging(["OPENUN_MODE": "daemon", "OPENUN_BUNDLE_ID": "com.example.app"]) {
            $1
        }
        _ = try await runToEnd(["authorize", "--deny", "--app", "com.example.denied"], environment: environment)
        let path = try Self.linesWithDeniedApp(in: daemon.folder.appendingPathComponent("input"))
        let command = try RunningCommand(["import", path, "--batch-size", "3"], environment: environment)
        await command.waitForExit()
        #expect(command.process.terminationStatus != 0)
        #expect(
            command.stderr.contains(
                "stopped at the batch of lines 1-3, at its requests for com.example.denied: line 2: notifications are "
                    + "not allowed for com.example.denied; of that batch, the requests for com.example.app (2) were "
                    + "stored (2 in all), those for com.example.denied and any app after it were not; nothing was "
                    + "imported before it"),
            "\(command.stderr)")
        let listed = try await runToEnd(["list"], environment: environment)
        #expect(listed.contains("a1") && listed.contains("a2") && !listed.contains("a3"), "\(listed)")
    }

    @Test("standard input, batches smaller than the file, a JSON summary, and the cap's discards named")
    func standardInput() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = (1...25).map { #"{"id": "r\#($0)", "title": "R\#($0)", "in": "\#($0)m"}"# }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_PENDING_CAP": "20"]
        let process = TestProcess()
        process.executableURL = try builtExecutable("unotify")
        process.arguments = ["import", "-", "--batch-size", "7", "--json"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(lines.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        let printed = await offPool { output.fileHandleForReading.readDataToEndOfFile() }
        await process.exited()
        #expect(process.terminationStatus == 0)
        let summary = try #require(try JSONSerialization.jsonObject(with: printed) as? [String: Any])
        #expect(summary["imported"] as? Int == 25 && summary["apps"] as? Int == 1)
        #expect(Set(summary["discarded"] as? [String] ?? []) == Set((21...25).map { "r\($0)" }))
        #expect((summary["invalid"] as? [Any])?.isEmpty == true)
    }

    @Test("a missing file, a folder, a bad --batch-size: one line each")
    func badArguments() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (arguments, message) in [
            (["import", folder.appendingPathComponent("none.jsonl").path], "no file"),
            (["import", folder.path], "it is a folder"),
            (["import", "-", "--batch-size", "0"], "--batch-size takes 1...100000"),
        ] {
            let command = try RunningCommand(arguments, environment: ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"])
            await command.waitForExit()
            _ = await command.wait(upTo: 1) { _, err in err.hasSuffix("\n") }
            #expect(command.process.terminationStatus != 0)
            #expect(command.stderr.split(separator: "\n").count == 1 && command.stderr.contains(message), "\(command.stderr)")
        }
    }

    @Test("through unotifyd: 5,000 requests in batches of 2,000, each sent in messages under 1 MiB")
    func throughTheDaemon() async throws {
        let daemon = DaemonProcess(arguments: ["--pending-cap", "off"])
        try await daemon.start()
        defer { Task { await daemon.stop() } }
        let body = String(repeating: "b", count: 400)
        let path = try Self.file(
            (1...5_000).map { #"{"id": "d\#($0)", "title": "D\#($0)", "body": "\#(body)", "in": "\#($0 + 60)s"}"# },
            in: daemon.folder.appendingPathComponent("input"))
        let environment = daemon.environment.merging(["OPENUN_MODE": "daemon"]) { $1 }
        let output = try await runToEnd(["import", path, "--batch-size", "2000", "--app", "com.example.bulk"], environment: environment)
        #expect(output.hasPrefix("imported 5000 requests for 1 app"), "\(output)")
        let status = try await runToEnd(["status", "--json"], environment: environment)
        let apps = try #require((try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["apps"] as? [[String: Any]])
        #expect(apps.first { $0["app"] as? String == "com.example.bulk" }?["pending"] as? Int == 5_000, "\(status)")
    }

    @Test("a line's null is an absent field; a value of another type is refused with the field's name")
    func nullsAndTypes() throws {
        func fields(_ line: String) throws -> RequestFields {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try RequestFields(json: object)
        }
        let nulls = try fields(
            #"{"id": null, "title": null, "badge": null, "user-info": null, "repeats": null, "attachment": null, "in": "1h"}"#)
        #expect(nulls.id == nil && nulls.title == "" && nulls.badge == nil && nulls.userInfo == nil)
        #expect(nulls.userInfoObject == nil && !nulls.trigger.repeats && nulls.attachments.isEmpty)
        let given = try fields(
            #"{"title": "T", "badge": 3, "user-info": {"room": 4}, "repeats": true, "body-arg": ["a", "b"], "in": "1h"}"#)
        #expect(given.title == "T" && given.badge == 3 && given.trigger.repeats && given.bodyArguments == ["a", "b"])
        #expect(given.userInfoObject?["room"] as? Int == 4)
        #expect(try fields(#"{"user-info": "{\"a\": 1}"}"#).userInfo == #"{"a": 1}"#)
        for (line, message) in [
            (#"{"title": 5}"#, "'title' must be a string"),
            (#"{"title": ["a"]}"#, "'title' must be a string"),
            (#"{"repeats": "yes"}"#, "'repeats' must be true or false"),
            (#"{"user-info": [1]}"#, "'user-info' must be a JSON object"),
            (#"{"attachment": [1]}"#, "'attachment' must be a string or a list of strings"),
            (#"{"attachment": {"a": 1}}"#, "'attachment' must be a string or a list of strings"),
            (#"{"badge": true}"#, "'badge' must be a whole number"),
            (#"{"badge": false}"#, "'badge' must be a whole number"),
            (#"{"badge": 1.5}"#, "'badge' must be a whole number"),
            (#"{"repeats": 1}"#, "'repeats' must be true or false"),
            (#"{"repeats": 0}"#, "'repeats' must be true or false"),
            (#"{"strict": 1.0}"#, "'strict' must be true or false"),
        ] {
            #expect(throws: (any Error).self, "\(line)") { try fields(line) }
            do { _ = try fields(line) } catch { #expect("\(error)".contains(message), "\(line): \(error)") }
        }
    }

    @Test("a badge of 0 or 1 is a number, not a boolean; a flag is a boolean, not a number")
    func badgeZeroAndOne() throws {
        func fields(_ line: String) throws -> RequestFields {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try RequestFields(json: object)
        }
        // JSONSerialization's NSNumber of a 0 or 1 also bridges to `Bool`: the badge was refused, a flag taken.
        for (line, badge) in [
            (#"{"badge": 0}"#, 0), (#"{"badge": 1}"#, 1), (#"{"badge": 2}"#, 2), (#"{"badge": 0.0}"#, 0),
            (#"{"badge": 1.0}"#, 1), (#"{"badge": -0}"#, 0),
        ] {
            #expect(try fields(line).badge == badge, "\(line)")
            #expect(try fields(line).request().content.badge?.intValue == badge, "\(line)")
        }
        #expect(try fields(#"{"repeats": true, "in": "2h"}"#).trigger.repeats)
        #expect(try !fields(#"{"repeats": false, "in": "2h"}"#).trigger.repeats)
        #expect(RequestFields.jsonBoolean(NSNumber(value: 1)) == nil)
    }

    @Test("unotify import keeps badge 0 (clear the badge), 1 and 2, the fast way and the slow way")
    func importsBadgeZeroAndOne() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        // "say \"hi\"" has an escape, which the fast way leaves to JSONSerialization and RequestFields(json:).
        let path = try Self.file(
            [
                #"{"id": "b0", "title": "Clear", "badge": 0, "in": "1h"}"#,
                #"{"id": "b1", "title": "One", "badge": 1, "in": "1h"}"#,
                #"{"id": "b2", "title": "Two", "badge": 2, "in": "1h"}"#,
                #"{"id": "s0", "title": "say \"hi\"", "badge": 0, "in": "1h"}"#,
                #"{"id": "s1", "title": "say \"hi\"", "badge": 1, "in": "1h"}"#,
                #"{"id": "none", "title": "Left as is", "in": "1h"}"#,
            ], in: folder)
        let output = try await execute(["import", path, "--store", store, "--mode", "embedded", "--app", "com.example.app"])
        #expect(output.hasPrefix("imported 6 requests for 1 app"), "\(output)")
        let listed = try await execute(["list", "--json", "--store", store, "--mode", "embedded", "--app", "com.example.app"])
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        let badges = Dictionary(
            uniqueKeysWithValues: requests.map {
                let content = $0["content"] as? [String: Any]
                return ($0["identifier"] as? String ?? "", (content?["badge"] as? NSNumber)?.intValue)
            })
        #expect(badges == ["b0": 0, "b1": 1, "b2": 2, "s0": 0, "s1": 1, "none": nil], "\(listed)")
    }

    @Test("a line's keys are exactly add's long options, and app")
    func sameFieldsAsAdd() {
        let options = Set(
            Add.helpMessage(columns: 400).split(separator: "\n")
                .compactMap { line -> String? in
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    guard trimmed.hasPrefix("--") else { return nil }
                    return String(trimmed.dropFirst(2).prefix { $0 != " " && $0 != "," && $0 != "<" })
                })
        let global: Set<String> = ["app", "store", "json", "mode", "socket", "verbose", "help", "version"]
        #expect(options.subtracting(global) == RequestFields.jsonKeys.subtracting(["app"]))
    }

    @Test("lines are split at line feeds (a CR before one is the line's), and batches keep file order per app")
    func linesAndBatches() throws {
        let ranges = Import.lineRanges(in: Data("ab\r\n\ncd\n".utf8))
        #expect(ranges == [0..<3, 4..<4, 5..<7, 8..<8])
        #expect(Import.lineRanges(in: Data()) == [0..<0])
        #expect(Import.lineRanges(in: Data("x".utf8)) == [0..<1])

        /// Requests named "r<line>" at these lines, of these apps.
        func parsedLines(_ items: [(line: Int, app: String)]) -> Import.ParsedLines {
            Import.ParsedLines(
                specs: items.map { RequestSpec(identifier: "r\($0.line)", content: NotificationPayload(), trigger: nil) },
                lines: items.map(\.line), apps: items.map(\.app), bad: [])
        }
        let parsed = parsedLines([(1, "a"), (2, "b"), (4, "a"), (5, "a"), (7, "c")])
        #expect(parsed.count == 5 && parsed.appIDs == ["a", "b", "c"])
        let batches = Array(parsed.batches(of: 3))
        #expect(batches.map(\.count) == [3, 2])
        #expect(batches.map(\.firstLine) == [1, 5] && batches.map(\.lastLine) == [4, 7])
        #expect(batches[0].requestsByApp.map(\.appID) == ["a", "b"])
        #expect(batches[0].requestsByApp.map { $0.specs.map(\.identifier) } == [["r1", "r4"], ["r2"]])
        #expect(batches[1].requestsByApp.map { $0.specs.map(\.identifier) } == [["r5"], ["r7"]])
        #expect(batches.map { $0.requestsByApp.map(\.lines) } == [[[1, 4], [2]], [[5], [7]]])
        #expect(Array(parsedLines([]).batches(of: 3)).isEmpty)
        // A batch of one app is its specs as they are: all of them, or a slice.
        let oneApp = parsedLines((1...5).map { ($0, "a") })
        #expect(Array(oneApp.batches(of: 5)).map { $0.requestsByApp.map(\.appID) } == [["a"]])
        let whole = try #require(Array(oneApp.batches(of: 5)).first)
        #expect(whole.requestsByApp[0].specs.map(\.identifier) == ["r1", "r2", "r3", "r4", "r5"])
        let slices = Array(oneApp.batches(of: 2))
        #expect(slices.map { $0.requestsByApp[0].specs.map(\.identifier) } == [["r1", "r2"], ["r3", "r4"], ["r5"]])
        #expect(slices.map(\.firstLine) == [1, 3, 5] && slices.map(\.lastLine) == [2, 4, 5])
        #expect(slices.map { $0.requestsByApp[0].lines } == [[1, 2], [3, 4], [5]])
    }
}
