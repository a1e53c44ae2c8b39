import Foundation
import NotificationModel

extension FastSpecJSON {
    /// Reads a stored spec of the shape ``encode(_:)-(RequestSpec)`` writes, without `JSONDecoder` (with
    /// ``FastJSONReader``, the reader ``FastPayloadJSON`` and `unotify import` share): every claim and listing decodes
    /// the specs it returns, and for pushes that decoding cost more CPU than the claim's SQL.
    ///
    /// It answers only when it is sure to build what ``StoredJSON/decode(_:from:)`` builds: exactly the keys the
    /// writer writes (an unknown, missing or repeated key, a `null`, an escape other than `\"`, `\\`, `\/`, `\n`,
    /// `\t`, `\r`, a number out of its type's range, a `volume`, attachments, communication or an app appearance all
    /// answer `nil`, and the caller decodes with ``StoredJSON``). Malformed input answers `nil`, never traps.
    ///
    /// ```swift
    /// let spec = try FastSpecJSON.decodeSpec(bytes) ?? StoredJSON.decode(RequestSpec.self, from: bytes)
    /// ```
    static func decodeSpec(_ data: Data) -> RequestSpec? {
        data.withUnsafeBytes { raw -> RequestSpec? in
            var reader = FastJSONReader(bytes: raw, strings: .encoderEscapes)
            guard let value = document(&reader) else { return nil }
            return spec(value)
        }
    }

    /// A parsed JSON value; numbers keep their text, converted by the field that reads them.
    enum Value {
        case string(String)
        case number(String)
        case bool(Bool)
        case array([Value])
        case object([String: Value])
    }

    /// The deepest nesting read (RFC 8259's grammar, read by ``FastJSONReader``; no `null`).
    static let depthLimit = 64

    /// The whole input as one value, with nothing but white space after it.
    static func document(_ reader: inout FastJSONReader) -> Value? {
        guard let value = value(&reader, depth: 0) else { return nil }
        reader.skipSpace()
        return reader.atEnd ? value : nil
    }

    /// A value after optional white space; strings with the escapes `JSONEncoder` writes (`\"`, `\\`, `\/`, `\n`,
    /// `\t`, `\r`) and valid UTF-8 only.
    private static func value(_ reader: inout FastJSONReader, depth: Int) -> Value? {
        guard depth < depthLimit else { return nil }
        reader.skipSpace()
        switch reader.peek {
        case UInt8(ascii: "\""): return reader.string().map(Value.string)
        case UInt8(ascii: "{"):
            var members: [String: Value] = [:]
            let read = reader.object { reader, key in
                guard let member = value(&reader, depth: depth + 1) else { return false }
                return members.updateValue(member, forKey: key) == nil
            }
            return read ? .object(members) : nil
        case UInt8(ascii: "["):
            var elements: [Value] = []
            let read = reader.array { reader in
                guard let element = value(&reader, depth: depth + 1) else { return false }
                elements.append(element)
                return true
            }
            return read ? .array(elements) : nil
        case UInt8(ascii: "t"): return reader.literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return reader.literal("false") ? .bool(false) : nil
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            guard let number = reader.number() else { return nil }
            return .number(reader.text(number.range))
        default: return nil
        }
    }

    // MARK: - From values to the model, as the synthesized `init(from:)`s read them

    /// The members of an object whose keys are all among `allowed`.
    private static func members(_ value: Value?, allowed: Set<String>) -> [String: Value]? {
        guard case .object(let members)? = value, members.keys.allSatisfy(allowed.contains) else { return nil }
        return members
    }

    private static func string(_ value: Value?) -> String? {
        guard case .string(let text)? = value else { return nil }
        return text
    }

    private static func bool(_ value: Value?) -> Bool? {
        guard case .bool(let flag)? = value else { return nil }
        return flag
    }

    private static func int(_ value: Value?) -> Int? {
        guard case .number(let text)? = value else { return nil }
        return Int(text)
    }

    private static func unsigned(_ value: Value?) -> UInt? {
        guard case .number(let text)? = value else { return nil }
        return UInt(text)
    }

    /// A finite `Double` (JSON cannot hold the others; an overflowing text is left to `JSONDecoder`).
    private static func double(_ value: Value?) -> Double? {
        guard case .number(let text)? = value, let number = Double(text), number.isFinite else { return nil }
        // A text that underflows to zero: left to JSONDecoder too.
        if number == 0, text.utf8.contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) {
            return nil
        }
        return number
    }

    /// An optional member: absent is `nil`; present it must read, else the whole spec is left to `JSONDecoder`.
    private static func optional<T>(_ value: Value?, _ read: (Value?) -> T?) -> T?? {
        guard let value else { return .some(nil) }
        return read(value).map { .some($0) }
    }

    private static let specKeys: Set<String> = ["apns", "content", "identifier", "missedFirePolicy", "trigger"]

    static func spec(_ value: Value) -> RequestSpec? {
        guard let members = members(value, allowed: specKeys),
            let content = content(members["content"]),
            let identifier = string(members["identifier"]),
            let policy = missedFirePolicy(members["missedFirePolicy"]),
            let trigger = optional(members["trigger"], Self.trigger),
            let apns = optional(members["apns"], Self.apnsOptions)
        else { return nil }
        return RequestSpec(identifier: identifier, content: content, trigger: trigger, missedFirePolicy: policy, apns: apns)
    }

    private static let contentKeys: Set<String> = [
        "attachments", "badge", "body", "categoryIdentifier", "filterCriteria", "interruptionLevel", "launchImageName",
        "relevanceScore", "sound", "subtitle", "summaryArgument", "summaryArgumentCount", "targetContentIdentifier",
        "threadIdentifier", "title", "userInfo",
    ]

    private static func content(_ value: Value?) -> NotificationPayload? {
        guard let members = members(value, allowed: contentKeys),
            case .array(let attachments)? = members["attachments"], attachments.isEmpty,
            let badge = optional(members["badge"], int),
            let body = string(members["body"]),
            let category = string(members["categoryIdentifier"]),
            let filterCriteria = optional(members["filterCriteria"], string),
            let interruptionLevel = unsigned(members["interruptionLevel"]),
            let launchImageName = string(members["launchImageName"]),
            let relevanceScore = double(members["relevanceScore"]),
            let sound = optional(members["sound"], Self.sound),
            let subtitle = string(members["subtitle"]),
            let summaryArgument = string(members["summaryArgument"]),
            let summaryArgumentCount = int(members["summaryArgumentCount"]),
            let target = optional(members["targetContentIdentifier"], string),
            let thread = string(members["threadIdentifier"]),
            let title = string(members["title"]),
            let userInfo = dictionary(members["userInfo"])
        else { return nil }
        var content = NotificationPayload()
        content.badge = badge
        content.body = body
        content.categoryIdentifier = category
        content.filterCriteria = filterCriteria
        content.interruptionLevel = interruptionLevel
        content.launchImageName = launchImageName
        content.relevanceScore = relevanceScore
        content.sound = sound
        content.subtitle = subtitle
        content.summaryArgument = summaryArgument
        content.summaryArgumentCount = summaryArgumentCount
        content.targetContentIdentifier = target
        content.threadIdentifier = thread
        content.title = title
        content.userInfo = userInfo
        return content
    }

    private static let soundKeys: Set<String> = ["bundleDirectory", "isCritical", "isRingtone", "name"]

    private static func sound(_ value: Value?) -> SoundSpec? {
        guard let members = members(value, allowed: soundKeys),
            let bundleDirectory = optional(members["bundleDirectory"], string),
            let isCritical = bool(members["isCritical"]),
            let isRingtone = bool(members["isRingtone"]),
            let name = optional(members["name"], string)
        else { return nil }
        return SoundSpec(name: name, isCritical: isCritical, isRingtone: isRingtone, bundleDirectory: bundleDirectory)
    }

    private static func missedFirePolicy(_ value: Value?) -> MissedFirePolicy? {
        guard case .object(let members)? = value, members.count == 1, let (name, payload) = members.first else {
            return nil
        }
        switch name {
        case "deliver": return self.members(payload, allowed: []) != nil ? .deliver : nil
        case "skip": return self.members(payload, allowed: []) != nil ? .skip : nil
        case "deliverIfWithin":
            guard let inner = self.members(payload, allowed: ["_0"]), let seconds = double(inner["_0"]) else { return nil }
            return .deliverIfWithin(seconds)
        default: return nil
        }
    }

    private static func trigger(_ value: Value?) -> TriggerSpec? {
        guard case .object(let members)? = value, members.count == 1, let (name, payload) = members.first else {
            return nil
        }
        switch name {
        case "push": return self.members(payload, allowed: []) != nil ? .push : nil
        case "timeInterval":
            guard let inner = self.members(payload, allowed: ["_0", "repeats"]), let interval = double(inner["_0"]),
                let repeats = bool(inner["repeats"])
            else { return nil }
            return .timeInterval(interval, repeats: repeats)
        default: return nil
        }
    }

    private static let apnsKeys: Set<String> = ["collapseID", "contentAvailable", "expiration", "mutableContent", "priority"]

    private static func apnsOptions(_ value: Value?) -> APNsOptions? {
        guard let members = members(value, allowed: apnsKeys),
            let collapseID = optional(members["collapseID"], string),
            let contentAvailable = optional(members["contentAvailable"], bool),
            let expiration = optional(members["expiration"], double),
            let mutableContent = optional(members["mutableContent"], bool),
            let priority = optional(members["priority"], int)
        else { return nil }
        return APNsOptions(
            expiration: expiration.map(Date.init(timeIntervalSince1970:)), priority: priority, collapseID: collapseID,
            mutableContent: mutableContent ?? false, contentAvailable: contentAvailable ?? false)
    }

    private static func dictionary(_ value: Value?) -> [String: PropertyListValue]? {
        guard case .object(let members)? = value else { return nil }
        var result: [String: PropertyListValue] = [:]
        result.reserveCapacity(members.count)
        for (key, member) in members {
            guard let element = propertyList(member) else { return nil }
            result[key] = element
        }
        return result
    }

    /// A ``PropertyListValue`` in its tagged form: exactly one known key.
    private static func propertyList(_ value: Value) -> PropertyListValue? {
        guard case .object(let members) = value, members.count == 1, let (tag, payload) = members.first else {
            return nil
        }
        switch tag {
        case "s": return string(payload).map(PropertyListValue.string)
        case "i": return int(payload).map(PropertyListValue.integer)
        case "f": return double(payload).map(PropertyListValue.double)
        case "b": return bool(payload).map(PropertyListValue.bool)
        case "t": return double(payload).map { .date(Date(timeIntervalSince1970: $0)) }
        case "d": return string(payload).flatMap { Data(base64Encoded: $0) }.map(PropertyListValue.data)
        case "a":
            guard case .array(let elements) = payload else { return nil }
            var result: [PropertyListValue] = []
            result.reserveCapacity(elements.count)
            for element in elements {
                guard let converted = propertyList(element) else { return nil }
                result.append(converted)
            }
            return .array(result)
        case "o": return dictionary(payload).map(PropertyListValue.dictionary)
        default: return nil
        }
    }
}
