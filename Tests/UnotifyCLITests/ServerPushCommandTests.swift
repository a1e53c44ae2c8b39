import ArgumentParser
import Foundation
import OpenUserNotificationsTesting
import Testing

@testable import UnotifyCLI

/// `unotify server push`'s options turned into the API's push object, without a server (ServerProcessTests sends
/// them to a real worker).
@Suite("unotify server push options")
struct ServerPushCommandTests {
    static func clock(_ text: String, zone: String) -> ManualNotificationClock {
        ManualNotificationClock(now: try! Date(text, strategy: .iso8601), timeZone: TimeZone(identifier: zone)!)
    }

    @Test(
        "--local-time HH:MM is today's date here when that time is still to come, else tomorrow's; a full local time is kept",
        arguments: [
            ("09:00", "2026-11-26T07:00:00Z", "UTC", "2026-11-26T09:00"),
            ("09:00", "2026-11-26T09:00:00Z", "UTC", "2026-11-27T09:00"),
            ("09:00", "2026-11-26T10:00:00Z", "UTC", "2026-11-27T09:00"),
            // 23:30 UTC on the 31st is 08:30 on 1 January in Tokyo: 09:00 is still to come there.
            ("09:00", "2026-12-31T23:30:00Z", "Asia/Tokyo", "2027-01-01T09:00"),
            ("23:59", "2026-12-31T23:59:30Z", "UTC", "2027-01-01T23:59"),
            ("2026-11-27T09:00", "2026-11-26T10:00:00Z", "UTC", "2026-11-27T09:00"),
        ])
    func localTime(text: String, now: String, zone: String, expected: String) throws {
        let clock = Self.clock(now, zone: zone)
        #expect(try ServerPush.localTime(text, now: clock.now, calendar: clock.calendar) == expected)
    }

    @Test("a bad --local-time is a clear error", arguments: ["25:00", "9", "09:60", "nine", "09:00:00"])
    func badLocalTime(text: String) {
        let clock = Self.clock("2026-11-26T07:00:00Z", zone: "UTC")
        let error = #expect(throws: CLIError.self) {
            try ServerPush.localTime(text, now: clock.now, calendar: clock.calendar)
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("--local-time takes HH:MM"))
    }

    @Test("every option becomes its field of the push object")
    func pushObject() throws {
        let command = try ServerPush.parse([
            "--token-file", "/dev/null", "--alias", "alice", "--title", "T", "--subtitle", "S", "--body", "B",
            "--badge", "3", "--sound", "none", "--category", "cat", "--thread", "th", "--extra", "Extras=a=b",
            "--extra", "empty=", "--local-time", "09:00", "--expires-in", "600", "--collapse-id", "c1",
            "--mutable-content", "--content-available",
        ])
        let object = try command.pushObject(clock: Self.clock("2026-11-26T07:00:00Z", zone: "UTC"))
        #expect(object["target"] as? [String: String] == ["alias": "alice"])
        #expect(object["title"] as? String == "T" && object["subtitle"] as? String == "S")
        #expect(
            object["body"] as? String == "B" && object["badge"] as? Int == 3 && object["sound"] as? String == "none")
        #expect(object["category"] as? String == "cat" && object["thread"] as? String == "th")
        #expect(object["extras"] as? [String: String] == ["Extras": "a=b", "empty": ""])
        #expect(object["localTime"] as? String == "2026-11-26T09:00")
        #expect(object["expiresAt"] as? String == "2026-11-26T07:10:00Z")
        #expect(object["collapseId"] as? String == "c1")
        #expect(object["mutableContent"] as? Bool == true && object["contentAvailable"] as? Bool == true)
        #expect(object["sendAt"] == nil)
        // A background push: --content-available alone is enough.
        let background = try ServerPush.parse(["--token-file", "/dev/null", "--all", "--content-available"])
        #expect(try background.pushObject(clock: Self.clock("2026-11-26T07:00:00Z", zone: "UTC")).count == 2)

        let devices = try ServerPush.parse([
            "--token-file", "/dev/null", "--device", "a", "--device", "b", "--body", "x", "--at",
            "2026-11-27T08:00:00Z",
        ])
        let second = try devices.pushObject(clock: Self.clock("2026-11-26T07:00:00Z", zone: "UTC"))
        #expect(second["target"] as? [String: [String]] == ["devices": ["a", "b"]])
        #expect(second["sendAt"] as? String == "2026-11-27T08:00:00Z" && second.count == 3)
        let tag = try ServerPush.parse([
            "--token-file", "/dev/null", "--tag-expression", #"{"tag":"news"}"#, "--title", "x",
        ])
        #expect(
            (try tag.pushObject(clock: Self.clock("2026-11-26T07:00:00Z", zone: "UTC"))["target"] as? [String: Any])?[
                "tag"] as? [String: String] == ["tag": "news"])
        let all = try ServerPush.parse(["--token-file", "/dev/null", "--all", "--title", "x"])
        #expect(try all.target() as? [String: Bool] == ["all": true])
    }

    @Test(
        "bad combinations are refused before anything is sent",
        arguments: [
            (["--title", "x"], "exactly one target"),
            (["--all", "--account", "a", "--title", "x"], "exactly one target"),
            (["--all"], "needs --title"),
            (["--all", "--title", "x", "--at", "2026-11-27T08:00:00Z", "--local-time", "09:00"], "not both"),
            (["--all", "--title", "x", "--expires-in", "0"], "--expires-in"),
            (["--all", "--title", "x", "--extra", "=v"], "KEY=VALUE"),
        ])
    func refused(arguments: [String], message: String) {
        #expect {
            _ = try ServerPush.parse(["--token-file", "/dev/null"] + arguments)
        } throws: { error in
            ServerPush.message(for: error).contains(message)
        }
    }
}
