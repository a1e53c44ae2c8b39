import ArgumentParser
import Foundation
import NotificationEngine
import NotificationModel
import Testing

@testable import UnotifyCLI

/// `unotify import`'s fast way (``RequestFields/direct(line:)`` and ``RequestFields/directSpec()``) against its slow
/// way (`JSONSerialization`, `RequestFields(json:)`, `request().spec()`): the same spec for every line the fast way
/// takes, and `nil` (or a refusal) for every line only the slow way reads.
@Suite("unotify import: the fast way makes what the slow way makes")
struct RequestFieldsDirectTests {
    /// The line the slow way: its spec and app, or the error it is refused with.
    static func slow(_ line: String) throws -> (spec: RequestSpec, app: String?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw ValidationError("not a JSON object")
        }
        let fields = try RequestFields(json: object)
        return (try fields.request().spec(), object["app"] as? String)
    }

    /// The line's fields the fast way; `nil` when it leaves the line to the slow way.
    static func direct(_ line: String) -> (fields: RequestFields, app: String?)? {
        Data(line.utf8).withUnsafeBytes { RequestFields.direct(line: $0) }
    }

    static let taken: [String] = [
        #"{"id": "imp-1", "title": "Reminder 1", "subtitle": "Benchmark", "body": "Your scheduled reminder is due.", "category": "bench.reminder", "thread": "thread-1", "user-info": {"index": 1, "kind": "bench"}, "in": "1365453s"}"#,
        #"{"id":"compact","title":"T","in":"5m"}"#,
        "{ \"id\" : \"spaced\" ,\t\"title\" : \"T\" , \"in\" : \"1h\" }\r",
        #"{"id": "b3", "badge": 3, "sound": "none", "in": "1h"}"#,
        #"{"id": "bn", "badge": -2, "sound": "default", "in": "1h"}"#,
        #"{"id": "b0", "badge": 0, "in": "1h"}"#,
        #"{"id": "b1", "badge": 1, "in": "1h"}"#,
        #"{"id": "b-0", "badge": -0, "in": "1h"}"#,
        #"{"id": "s1", "sound": "critical:default", "interruption-level": "critical", "in": "1h"}"#,
        #"{"id": "s2", "sound": "critical:bell.caf", "interruption-level": "time-sensitive", "in": "1h"}"#,
        #"{"id": "s3", "sound": "chime.caf", "interruption-level": "passive", "missed": "skip", "in": "1h"}"#,
        #"{"id": "m1", "missed": "within:5m", "interruption-level": "active", "in": "1h"}"#,
        #"{"id": "loc", "title-key": "GREETING", "title-arg": ["Ada", "Lovelace"], "body-key": "B", "body-arg": "one", "in": "1h"}"#,
        #"{"id": "sub", "subtitle-key": "S", "subtitle-arg": [], "title": "ignored?", "in": "1h"}"#,
        #"{"id": "ui", "user-info": {"n": 1, "z": 0, "neg": -7, "f": 1.5, "g": 1.0, "e": 2e3, "small": 0.001, "b": true, "c": false, "s": "x", "a": [1, "two", [3.25], {"k": false}], "u": "héllo ✓ 🎉", "big": 123456789012345678, "empty": {}, "list": []}, "in": "2h"}"#,
        #"{"id": "cal", "title": "Standup", "calendar": "weekday=2,hour=9", "repeats": true}"#,
        #"{"id": "calz", "calendar": "hour=7,minute=30", "time-zone": "Europe/Paris", "strict": true}"#,
        #"{"id": "at", "at": "2030-01-01T08:00:00Z"}"#,
        #"{"id": "atf", "at": "2030-01-01T08:00", "time-zone": "America/New_York"}"#,
        #"{"id": "reg", "region": "48.8584,2.2945,150", "region-id": "tower", "on-entry": true, "on-exit": false}"#,
        #"{"id": "rep", "in": "2h", "repeats": true}"#,
        #"{"id": "now", "title": "At once"}"#,
        #"{"id": "app", "app": "com.example.other", "title": "Elsewhere", "in": "1d"}"#,
        #"{"id": "look", "bundle-dir": "/tmp", "app-name": "Example", "thread": "t", "category": "c", "in": "90"}"#,
        #"{"id": "uni", "title": "Grüße aus Köln", "body": "日本語のテキスト", "in": "1h"}"#,
    ]

    @Test("every line the fast way takes becomes the spec the slow way makes", arguments: taken)
    func sameSpec(line: String) throws {
        let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
        let (fields, app) = try #require(Self.direct(trimmed), "\(line)")
        let spec = try #require(try fields.directSpec(), "\(line)")
        let slow = try Self.slow(trimmed)
        #expect(spec == slow.spec, "\(line)")
        #expect(app == slow.app)
    }

    static let leftToTheSlowWay: [String] = [
        #"{"id": null, "title": "T", "in": "1h"}"#,
        #"{"id": "esc", "title": "say \"hi\"", "in": "1h"}"#,
        #"{"id": "u", "title": "\u00e9", "in": "1h"}"#,
        #"{"id": "dup", "title": "a", "title": "b"}"#,
        #"{"id": "typo", "titel": "a"}"#,
        #"{"id": "t", "title": 5}"#,
        #"{"id": "t", "badge": 1.0}"#,
        #"{"id": "t", "badge": 1e0}"#,
        #"{"id": "t", "badge": true}"#,
        #"{"id": "t", "badge": 1234567890123456789}"#,
        #"{"id": "t", "repeats": "yes", "in": "2h"}"#,
        #"{"id": "t", "repeats": 1, "in": "2h"}"#,
        #"{"id": "t", "user-info": "{\"a\": 1}"}"#,
        #"{"id": "t", "user-info": [1]}"#,
        #"{"id": "t", "user-info": {"a": null}}"#,
        #"{"id": "t", "user-info": {"a": 0.1234567890123}}"#,
        #"{"id": "t", "user-info": {"a": "x", "a": "y"}}"#,
        #"{"id": "t", "title-arg": ["a", 1]}"#,
        #"{"id": "t", "app": 5}"#,
        "{\"id\": \"bom\", \"title\": \"\u{FEFF}x\"}",
        #"{"id": "x",}"#,
        #"{"id": "x"} x"#,
        #"["id"]"#,
        #"not json"#,
        #"{"id": "x""#,
        #"{"id": 01}"#,
        #"{"id": "deep", "user-info": {"a": "# + String(repeating: "[", count: 32) + "1"
            + String(repeating: "]", count: 32) + #"}, "in": "1h"}"#,
        #"{"id": "esc", "t\u0069tle": "escaped key", "in": "1h"}"#,
        #"{"id": "esc", "tit\"le": "quote in a key", "in": "1h"}"#,
        "{\"id\": \"tab\", \"ti\ttle\": \"control character in a key\", \"in\": \"1h\"}",
        "{\"id\": \"bomkey\", \"\u{FEFF}title\": \"x\", \"in\": \"1h\"}",
        #"{"id": "case", "Title": "x", "in": "1h"}"#,
        #"{"id": "open", "title"#,
    ]

    @Test("the fast way's keys are the slow way's: each matched by its name, and nothing else")
    func keys() {
        func key(_ text: String) -> RequestFields.Key? { RequestFields.Key(name: text) }
        #expect(Set(RequestFields.Key.allCases.map(\.name)) == RequestFields.jsonKeys)
        for name in RequestFields.jsonKeys {
            #expect(key(name)?.name == name, "\(name)")
            #expect(key(name + "x") == nil && key(String(name.dropLast())) == nil && key(name.uppercased()) == nil)
        }
        #expect(key("") == nil && key(String(repeating: "x", count: 40)) == nil)
    }

    /// Lines only the slow way reads (or refuses).
    @Test("a line outside the fast way's subset is left to the slow way", arguments: leftToTheSlowWay)
    func leftAlone(line: String) {
        #expect(Self.direct(line) == nil, "\(line)")
    }

    @Test("a line the fast way reads but a check refuses is refused the slow way too; attachments take the slow way")
    func refusals() throws {
        for line in [
            #"{"id": "h", "calendar": "hour=25"}"#,
            #"{"id": "short", "in": "30s", "repeats": true}"#,
            #"{"id": "two", "in": "1h", "calendar": "hour=9"}"#,
            #"{"id": "lvl", "interruption-level": "loud", "in": "1h"}"#,
            #"{"id": "miss", "missed": "sometimes", "in": "1h"}"#,
            #"{"id": "arg", "title-arg": ["x"], "in": "1h"}"#,
            #"{"id": "zone", "calendar": "hour=9", "time-zone": "Mars/Olympus"}"#,
            #"{"id": "rep", "repeats": true}"#,
        ] {
            let (fields, _) = try #require(Self.direct(line), "\(line)")
            let now = Date()
            var directFailed = false
            do {
                if let spec = try fields.directSpec() {
                    _ = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: .current)
                } else {
                    directFailed = true
                }
            } catch { directFailed = true }
            var slowFailed = false
            do {
                let spec = try Self.slow(line).spec
                _ = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: .current)
            } catch { slowFailed = true }
            #expect(slowFailed, "\(line)")
            #expect(directFailed, "\(line)")
        }
        let attachment = try #require(Self.direct(#"{"id": "att", "attachment": "/tmp/a.png", "in": "1h"}"#))
        #expect(try attachment.fields.directSpec() == nil)
    }
}
