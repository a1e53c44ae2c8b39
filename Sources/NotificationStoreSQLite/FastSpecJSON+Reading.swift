import Foundation
import NotificationModel

extension FastSpecJSON {
    /// Reads a stored spec of the shape ``encode(_:)-(RequestSpec)`` writes, without `JSONDecoder`: every claim and
    /// listing decodes the specs it returns, and for pushes that decoding cost more CPU than the claim's SQL.
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
            var reader = Reader(bytes: raw)
            guard let value = reader.document() else { return nil }
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

    /// A strict JSON reader (RFC 8259's grammar, no `null`, nesting at most ``depthLimit`` deep).
    struct Reader {
        static let depthLimit = 64
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// The whole input as one value, with nothing but white space after it.
        mutating func document() -> Value? {
            guard let value = value(depth: 0) else { return nil }
            skipSpace()
            return index == bytes.count ? value : nil
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        private mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += count
            return true
        }

        private mutating func value(depth: Int) -> Value? {
            guard depth < Self.depthLimit else { return nil }
            skipSpace()
            switch current {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                return number().map(Value.number)
            default: return nil
            }
        }

        private mutating func object(depth: Int) -> Value? {
            index += 1
            var members: [String: Value] = [:]
            skipSpace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard current == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let member = value(depth: depth + 1), members.updateValue(member, forKey: key) == nil else {
                    return nil
                }
                skipSpace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(members)
                default: return nil
                }
            }
        }

        private mutating func array(depth: Int) -> Value? {
            index += 1
            var elements: [Value] = []
            skipSpace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(elements)
                default: return nil
                }
            }
        }

        /// A string whose escapes are among `\"`, `\\`, `\/`, `\n`, `\t`, `\r`; valid UTF-8 only.
        private mutating func string() -> String? {
            index += 1
            let start = index
            var escaped = false
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    let end = index
                    index += 1
                    let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                    guard escaped else { return String(validating: slice, as: UTF8.self) }
                    return Self.unescaped(slice)
                case UInt8(ascii: "\\"):
                    escaped = true
                    index += 2
                case 0..<0x20:
                    return nil
                default:
                    index += 1
                }
            }
            return nil
        }

        private static func unescaped(_ slice: UnsafeRawBufferPointer) -> String? {
            var result: [UInt8] = []
            result.reserveCapacity(slice.count)
            var position = 0
            while position < slice.count {
                let byte = slice[position]
                guard byte == UInt8(ascii: "\\") else {
                    result.append(byte)
                    position += 1
                    continue
                }
                guard position + 1 < slice.count else { return nil }
                switch slice[position + 1] {
                case UInt8(ascii: "\""): result.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): result.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): result.append(UInt8(ascii: "/"))
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "r"): result.append(0x0D)
                default: return nil
                }
                position += 2
            }
            return String(validating: result, as: UTF8.self)
        }

        /// A number's text, checked against JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
        private mutating func number() -> String? {
            let start = index
            func digits() -> Int {
                let first = index
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
                return index - first
            }
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return nil
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return nil }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return nil }
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
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
