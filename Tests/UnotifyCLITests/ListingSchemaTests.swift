import Foundation
import Testing

@testable import UnotifyCLI

/// `--json` listings carry the whole content and trigger, in the shape docs/schemas/unotify-listings.schema.json
/// documents.
@Suite("listing JSON against its schema")
struct ListingSchemaTests {
    static var schema: [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/schemas/unotify-listings.schema.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    @Test("list, delivered and history --json match the schema, with every content field set")
    func listingsMatch() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = ["--store", store, "--mode", "embedded", "--app", "com.example.json"]
        _ = try await execute(
            ["add", "--in", "1h", "--id", "full", "--title", "T", "--subtitle", "S", "--body", "B", "--badge", "4",
             "--sound", "default", "--category", "cat", "--thread", "th", "--user-info", #"{"k":[1,{"x":true}]}"#,
             "--interruption-level", "time-sensitive"] + common)
        _ = try await execute(["add", "--calendar", "hour=9,minute=30,weekday=2", "--repeats", "--id", "cal"] + common)
        _ = try await execute(["add", "--region", "48.85,2.29,150", "--region-id", "tower", "--on-entry", "--id", "geo"] + common)
        // A delivered notification, with its history: a push is delivered as it arrives.
        let push = folder.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":{"title":"pushed","subtitle":"sub"},"badge":2},"custom":{"key":"value"}}"#.utf8).write(to: push)
        _ = try await execute(["authorize", "--grant"] + common)
        _ = try await execute(["push", "com.example.json", push.path] + common)
        let pending = try Self.array(try await execute(["list", "--json"] + common))
        let delivered = try Self.array(try await execute(["delivered", "--json"] + common))
        let history = try Self.array(try await execute(["history", "--json"] + common))
        #expect(pending.count == 3)
        #expect(!delivered.isEmpty && !history.isEmpty)
        // A push's custom keys are seen from the command line.
        let pushed = try #require(delivered.first?["content"] as? [String: Any])
        #expect((pushed["userInfo"] as? [String: Any])?["custom"] as? [String: String] == ["key": "value"])
        for (items, definition) in [(pending, "pendingRequest"), (delivered, "deliveredNotification"), (history, "historyEntry")] {
            for item in items {
                let problems = Self.validate(item, against: ["$ref": "#/$defs/\(definition)"], at: definition)
                #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            }
        }
        // The content the old listing dropped is there.
        let full = try #require(pending.first { $0["identifier"] as? String == "full" }?["content"] as? [String: Any])
        #expect(full["subtitle"] as? String == "S" && full["badge"] as? Int == 4 && full["threadIdentifier"] as? String == "th")
        #expect(full["categoryIdentifier"] as? String == "cat" && full["interruptionLevel"] as? String == "timeSensitive")
        #expect((full["userInfo"] as? [String: Any])?["k"] != nil)
        let calendar = try #require(pending.first { $0["identifier"] as? String == "cal" }?["triggerDetails"] as? [String: Any])
        #expect(calendar["type"] as? String == "calendar")
        #expect(calendar["dateComponents"] as? [String: Int] == ["hour": 9, "minute": 30, "weekday": 2])
    }

    @Test("the validator refuses what the schema forbids (a missing field, an unknown one, a wrong type)")
    func validatorBites() {
        let entry: [String: Any] = [
            "app": "a", "identifier": "i", "title": "t", "due": NSNull(), "actedAt": "2026-01-01T00:00:00Z",
            "lateness": 0.1, "presenter": "terminal", "presentation": ["banner"], "outcome": "delivered", "detail": NSNull(),
        ]
        let reference: [String: Any] = ["$ref": "#/$defs/historyEntry"]
        #expect(Self.validate(entry, against: reference, at: "entry").isEmpty)
        var missing = entry
        missing["outcome"] = nil
        #expect(!Self.validate(missing, against: reference, at: "entry").isEmpty)
        var extra = entry
        extra["surprise"] = 1
        #expect(!Self.validate(extra, against: reference, at: "entry").isEmpty)
        var wrong = entry
        wrong["lateness"] = "late"
        #expect(!Self.validate(wrong, against: reference, at: "entry").isEmpty)
    }

    static func array(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    /// The part of JSON Schema the file uses: `$ref` into `$defs`, `type` (one or a list), `enum`, `oneOf`,
    /// `properties`, `required`, `additionalProperties` (false or a schema) and `items`.
    static func validate(_ value: Any, against schema: [String: Any], at path: String) -> [String] {
        if let reference = schema["$ref"] as? String {
            let name = String(reference.dropFirst("#/$defs/".count))
            guard let definition = (Self.schema["$defs"] as? [String: Any])?[name] as? [String: Any] else {
                return ["\(path): no definition \(name)"]
            }
            return validate(value, against: definition, at: path)
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            let matching = options.filter { validate(value, against: $0, at: path).isEmpty }
            return matching.count == 1 ? [] : ["\(path): matches \(matching.count) of oneOf"]
        }
        if let allowed = schema["enum"] as? [String] {
            return allowed.contains(value as? String ?? "\u{0}") ? [] : ["\(path): \(value) is not one of \(allowed)"]
        }
        if let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map({ [$0] }),
            !types.contains(where: { matches(value, type: $0) })
        {
            return ["\(path): \(value) is not \(types.joined(separator: " or "))"]
        }
        var problems: [String] = []
        if let object = value as? [String: Any], schema["type"] as? String == "object" {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(path): \(name) is missing")
            }
            for (name, element) in object {
                if let property = properties[name] {
                    problems += validate(element, against: property, at: "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path): \(name) is not in the schema")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    problems += validate(element, against: additional, at: "\(path).\(name)")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() { problems += validate(element, against: items, at: "\(path)[\(index)]") }
        }
        return problems
    }

    /// JSONSerialization gives booleans as NSNumbers whose Objective-C type is `c`.
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    private static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "string": return value is String
        case "boolean": return isBoolean(value)
        case "integer":
            guard let number = value as? NSNumber, !isBoolean(value) else { return false }
            return number.doubleValue == number.doubleValue.rounded()
        case "number": return value is NSNumber && !isBoolean(value)
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        default: return false
        }
    }
}
