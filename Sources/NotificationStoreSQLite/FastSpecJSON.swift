import Foundation
import NotificationEngine
import NotificationModel

/// The stored JSON of a common ``RequestSpec`` written directly, byte for byte what ``StoredJSON`` (Foundation's
/// `JSONEncoder`, sorted keys) writes, at a fraction of its cost: in a bulk add the encoding of the specs cost more CPU
/// than the SQL.
///
/// It covers the specs most adds carry: text, badge, sound, category, thread, a `userInfo` of strings, integers and
/// booleans, and a time-interval trigger or none. For anything else (attachments, communication, an app appearance,
/// APNs options, other triggers, a volume, control characters in a string, a number JSON cannot hold, a `userInfo` key
/// beyond ASCII) it answers `nil` and the caller uses ``StoredJSON``. Keys are in byte order, as `JSONEncoder` sorts
/// them.
///
/// ```swift
/// let bytes = try FastSpecJSON.encode(spec) ?? StoredJSON.encode(spec)
/// ```
enum FastSpecJSON {
    /// The spec's stored JSON, or `nil` when it has something this writer does not cover.
    static func encode(_ spec: RequestSpec) -> Data? {
        guard spec.apns == nil else { return nil }
        var writer = Writer()
        writer.bytes.reserveCapacity(512)
        guard writer.write(spec) else { return nil }
        return Data(writer.bytes)
    }

    /// `JSONEncoder`'s key order with `.sortedKeys`.
    static func ordered(_ keys: [String]) -> [String] {
        keys.sorted { precedes($0, $1) }
    }

    /// Byte order, which is `JSONEncoder`'s for the ASCII keys this writer takes (measured: `"Flag"`, `"Zed"`, `"_x"`,
    /// `"a10"`, `"a9"`; `FastSpecJSONTests`).
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static let specKeys = ordered(["content", "identifier", "missedFirePolicy", "trigger"])
    static let payloadKeys = ordered([
        "attachments", "badge", "body", "categoryIdentifier", "filterCriteria", "interruptionLevel", "launchImageName",
        "relevanceScore", "sound", "subtitle", "summaryArgument", "summaryArgumentCount", "targetContentIdentifier",
        "threadIdentifier", "title", "userInfo",
    ])
    static let soundKeys = ordered(["bundleDirectory", "isCritical", "isRingtone", "name"])
    static let intervalKeys = ordered(["_0", "repeats"])

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// A key and its colon; the caller writes the comma before it.
        mutating func key(_ key: String) -> Bool {
            guard string(key) else { return false }
            bytes.append(UInt8(ascii: ":"))
            return true
        }

        /// A JSON string as `JSONEncoder` escapes it (slashes too); `false` for control characters.
        mutating func string(_ value: String) -> Bool {
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "/"): raw("\\/")
                case 0..<0x20: return false
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
            return true
        }

        mutating func number(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

        mutating func number(_ value: UInt) { bytes.append(contentsOf: String(value).utf8) }

        /// `JSONEncoder`'s form: the shortest text that reads back, without a trailing `.0`.
        mutating func number(_ value: Double) -> Bool {
            guard value.isFinite else { return false }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
            return true
        }

        mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

        mutating func write(_ spec: RequestSpec) -> Bool {
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for name in FastSpecJSON.specKeys {
                if name == "trigger", spec.trigger == nil { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                guard key(name) else { return false }
                switch name {
                case "content": guard write(spec.content) else { return false }
                case "identifier": guard string(spec.identifier) else { return false }
                case "missedFirePolicy":
                    switch spec.missedFirePolicy {
                    case .deliver: raw("{\"deliver\":{}}")
                    case .skip: raw("{\"skip\":{}}")
                    case .deliverIfWithin(let seconds):
                        raw("{\"deliverIfWithin\":{\"_0\":")
                        guard number(seconds) else { return false }
                        raw("}}")
                    }
                default:
                    guard case .timeInterval(let interval, let repeats)? = spec.trigger else { return false }
                    raw("{\"timeInterval\":{")
                    for (position, name) in FastSpecJSON.intervalKeys.enumerated() {
                        if position > 0 { bytes.append(UInt8(ascii: ",")) }
                        guard key(name) else { return false }
                        if name == "repeats" { bool(repeats) } else if !number(interval) { return false }
                    }
                    raw("}}")
                }
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        mutating func write(_ content: NotificationPayload) -> Bool {
            guard content.attachments.isEmpty, content.communication == nil, content.appAppearance == nil else {
                return false
            }
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for name in FastSpecJSON.payloadKeys {
                switch name {
                case "badge": if content.badge == nil { continue }
                case "sound": if content.sound == nil { continue }
                case "filterCriteria": if content.filterCriteria == nil { continue }
                case "targetContentIdentifier": if content.targetContentIdentifier == nil { continue }
                default: break
                }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                guard key(name) else { return false }
                let written: Bool
                switch name {
                case "attachments": raw("[]"); written = true
                case "badge": number(content.badge!); written = true
                case "body": written = string(content.body)
                case "categoryIdentifier": written = string(content.categoryIdentifier)
                case "filterCriteria": written = string(content.filterCriteria!)
                case "interruptionLevel": number(content.interruptionLevel); written = true
                case "launchImageName": written = string(content.launchImageName)
                case "relevanceScore": written = number(content.relevanceScore)
                case "sound": written = write(content.sound!)
                case "subtitle": written = string(content.subtitle)
                case "summaryArgument": written = string(content.summaryArgument)
                case "summaryArgumentCount": number(content.summaryArgumentCount); written = true
                case "targetContentIdentifier": written = string(content.targetContentIdentifier!)
                case "threadIdentifier": written = string(content.threadIdentifier)
                case "title": written = string(content.title)
                default: written = write(content.userInfo)
                }
                guard written else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        mutating func write(_ sound: SoundSpec) -> Bool {
            guard sound.volume == nil else { return false }
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for name in FastSpecJSON.soundKeys {
                if name == "bundleDirectory", sound.bundleDirectory == nil { continue }
                if name == "name", sound.name == nil { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                guard key(name) else { return false }
                switch name {
                case "bundleDirectory": guard string(sound.bundleDirectory!) else { return false }
                case "isCritical": bool(sound.isCritical)
                case "isRingtone": bool(sound.isRingtone)
                default: guard string(sound.name!) else { return false }
                }
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        mutating func write(_ userInfo: [String: PropertyListValue]) -> Bool {
            bytes.append(UInt8(ascii: "{"))
            // Keys beyond ASCII: their order in JSONEncoder is not checked here.
            guard userInfo.keys.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else { return false }
            for (index, name) in userInfo.keys.sorted(by: FastSpecJSON.precedes).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                guard key(name) else { return false }
                switch userInfo[name]! {
                case .string(let value):
                    raw("{\"s\":")
                    guard string(value) else { return false }
                case .integer(let value):
                    raw("{\"i\":")
                    number(value)
                case .bool(let value):
                    raw("{\"b\":")
                    bool(value)
                default: return false
                }
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }
    }
}
