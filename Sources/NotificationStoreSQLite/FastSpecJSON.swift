import Foundation
import NotificationEngine
import NotificationModel

/// The stored JSON of a common ``RequestSpec`` written directly, byte for byte what ``StoredJSON`` (Foundation's
/// `JSONEncoder`, sorted keys) writes, at a fraction of its cost: in a bulk add the encoding of the specs cost more CPU
/// than the SQL.
///
/// It covers the specs most adds and pushes carry: text, badge, sound, category, thread, a `userInfo` of any
/// property-list values (a push's `aps` dictionary included), APNs options, and a time-interval or push trigger or
/// none; and the delivered record of such a spec (a `delivered` row's payload). For anything else
/// (attachments, communication, an app appearance, other triggers, a volume, control characters in a string, a number
/// JSON cannot hold, a `userInfo` key beyond ASCII) it answers `nil` and the caller uses ``StoredJSON``. Keys are in
/// byte order, as `JSONEncoder` sorts them.
///
/// ```swift
/// let bytes = try FastSpecJSON.encode(spec) ?? StoredJSON.encode(spec)
/// ```
enum FastSpecJSON {
    /// The spec's stored JSON, or `nil` when it has something this writer does not cover.
    static func encode(_ spec: RequestSpec) -> Data? {
        var writer = Writer()
        writer.bytes.reserveCapacity(512)
        guard writer.write(spec) else { return nil }
        return Data(writer.bytes)
    }

    /// The stored JSON of a delivered notification (the `delivered` row's payload), or `nil` when its spec has
    /// something this writer does not cover. Keys in byte order: appID, date, dueDate, historyID, presentation,
    /// request; dates as seconds since 1970, as ``StoredJSON`` writes them.
    static func encode(_ delivered: DeliveredNotification) -> Data? {
        var writer = Writer()
        writer.bytes.reserveCapacity(640)
        writer.raw("{\"appID\":")
        guard writer.string(delivered.appID) else { return nil }
        writer.raw(",\"date\":")
        guard writer.number(delivered.date.timeIntervalSince1970) else { return nil }
        writer.raw(",\"dueDate\":")
        guard writer.number(delivered.dueDate.timeIntervalSince1970) else { return nil }
        if let historyID = delivered.historyID {
            writer.raw(",\"historyID\":")
            writer.bytes.append(contentsOf: String(historyID).utf8)
        }
        writer.raw(",\"presentation\":")
        writer.number(delivered.presentation.rawValue)
        writer.raw(",\"request\":")
        guard writer.write(delivered.request) else { return nil }
        writer.bytes.append(UInt8(ascii: "}"))
        return Data(writer.bytes)
    }

    /// Byte order, which is `JSONEncoder`'s for the ASCII keys this writer takes (measured: `"Flag"`, `"Zed"`, `"_x"`,
    /// `"a10"`, `"a9"`; `FastSpecJSONTests`).
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Writes the keys in `JSONEncoder`'s sorted order, spelled out (a `switch` over key names compared strings per
    /// key, a fifth of the writer's time); `FastSpecJSONTests` checks the bytes against `StoredJSON`.
    struct Writer {
        var bytes: [UInt8] = []

        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// A key of ours (ASCII, nothing to escape) and its colon, after a comma unless it is the first.
        mutating func key(_ quotedKey: StaticString, first: inout Bool) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            raw(quotedKey)
        }

        /// A JSON string as `JSONEncoder` escapes it (slashes too); `false` for control characters.
        mutating func string(_ value: String) -> Bool {
            bytes.append(UInt8(ascii: "\""))
            // Most strings need no escape: copied at once.
            let copied = value.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
                guard !buffer.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/") })
                else { return false }
                bytes.append(contentsOf: buffer)
                return true
            }
            if copied != true {
                for byte in value.utf8 {
                    switch byte {
                    case UInt8(ascii: "\""): raw("\\\"")
                    case UInt8(ascii: "\\"): raw("\\\\")
                    case UInt8(ascii: "/"): raw("\\/")
                    case 0..<0x20: return false
                    default: bytes.append(byte)
                    }
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

        /// Keys in byte order: apns, content, identifier, missedFirePolicy, trigger.
        mutating func write(_ spec: RequestSpec) -> Bool {
            if let apns = spec.apns {
                raw("{\"apns\":")
                guard write(apns) else { return false }
                raw(",\"content\":")
            } else {
                raw("{\"content\":")
            }
            guard write(spec.content) else { return false }
            raw(",\"identifier\":")
            guard string(spec.identifier) else { return false }
            raw(",\"missedFirePolicy\":")
            switch spec.missedFirePolicy {
            case .deliver: raw("{\"deliver\":{}}")
            case .skip: raw("{\"skip\":{}}")
            case .deliverIfWithin(let seconds):
                raw("{\"deliverIfWithin\":{\"_0\":")
                guard number(seconds) else { return false }
                raw("}}")
            }
            switch spec.trigger {
            case nil: break
            case .timeInterval(let interval, let repeats)?:
                // Keys in byte order: _0, repeats.
                raw(",\"trigger\":{\"timeInterval\":{\"_0\":")
                guard number(interval) else { return false }
                raw(",\"repeats\":")
                bool(repeats)
                raw("}}")
            case .push?:
                raw(",\"trigger\":{\"push\":{}}")
            default: return false
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        /// Keys in byte order: collapseID, contentAvailable, expiration, mutableContent, priority (the optional ones
        /// only when set, as the synthesized `encode(to:)` writes them).
        mutating func write(_ options: APNsOptions) -> Bool {
            bytes.append(UInt8(ascii: "{"))
            if let collapseID = options.collapseID {
                raw("\"collapseID\":")
                guard string(collapseID) else { return false }
                raw(",")
            }
            raw("\"contentAvailable\":")
            bool(options.contentAvailable)
            if let expiration = options.expiration {
                raw(",\"expiration\":")
                guard number(expiration.timeIntervalSince1970) else { return false }
            }
            raw(",\"mutableContent\":")
            bool(options.mutableContent)
            if let priority = options.priority {
                raw(",\"priority\":")
                number(priority)
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        /// Keys in byte order: attachments, badge, body, categoryIdentifier, filterCriteria, interruptionLevel,
        /// launchImageName, relevanceScore, sound, subtitle, summaryArgument, summaryArgumentCount,
        /// targetContentIdentifier, threadIdentifier, title, userInfo.
        mutating func write(_ content: NotificationPayload) -> Bool {
            guard content.attachments.isEmpty, content.communication == nil, content.appAppearance == nil else {
                return false
            }
            raw("{\"attachments\":[]")
            if let badge = content.badge {
                raw(",\"badge\":")
                number(badge)
            }
            raw(",\"body\":")
            guard string(content.body) else { return false }
            raw(",\"categoryIdentifier\":")
            guard string(content.categoryIdentifier) else { return false }
            if let filterCriteria = content.filterCriteria {
                raw(",\"filterCriteria\":")
                guard string(filterCriteria) else { return false }
            }
            raw(",\"interruptionLevel\":")
            number(content.interruptionLevel)
            raw(",\"launchImageName\":")
            guard string(content.launchImageName) else { return false }
            raw(",\"relevanceScore\":")
            guard number(content.relevanceScore) else { return false }
            if let sound = content.sound {
                raw(",\"sound\":")
                guard write(sound) else { return false }
            }
            raw(",\"subtitle\":")
            guard string(content.subtitle) else { return false }
            raw(",\"summaryArgument\":")
            guard string(content.summaryArgument) else { return false }
            raw(",\"summaryArgumentCount\":")
            number(content.summaryArgumentCount)
            if let targetContentIdentifier = content.targetContentIdentifier {
                raw(",\"targetContentIdentifier\":")
                guard string(targetContentIdentifier) else { return false }
            }
            raw(",\"threadIdentifier\":")
            guard string(content.threadIdentifier) else { return false }
            raw(",\"title\":")
            guard string(content.title) else { return false }
            raw(",\"userInfo\":")
            guard write(content.userInfo) else { return false }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        /// Keys in byte order: bundleDirectory, isCritical, isRingtone, name.
        mutating func write(_ sound: SoundSpec) -> Bool {
            guard sound.volume == nil else { return false }
            bytes.append(UInt8(ascii: "{"))
            var first = true
            if let bundleDirectory = sound.bundleDirectory {
                key("\"bundleDirectory\":", first: &first)
                guard string(bundleDirectory) else { return false }
            }
            key("\"isCritical\":", first: &first)
            bool(sound.isCritical)
            key("\"isRingtone\":", first: &first)
            bool(sound.isRingtone)
            if let name = sound.name {
                key("\"name\":", first: &first)
                guard string(name) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        /// A `userInfo` (or a nested dictionary): keys in byte order, each value in ``PropertyListValue``'s tagged form.
        mutating func write(_ userInfo: [String: PropertyListValue]) -> Bool {
            bytes.append(UInt8(ascii: "{"))
            // Keys beyond ASCII: their order in JSONEncoder is not checked here.
            guard userInfo.keys.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else { return false }
            for (index, (name, value)) in userInfo.sorted(by: { FastSpecJSON.precedes($0.key, $1.key) }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                guard string(name) else { return false }
                bytes.append(UInt8(ascii: ":"))
                guard write(value) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }

        /// One value as ``PropertyListValue`` encodes it: a one-key object whose key names the kind (`s`, `i`, `f`,
        /// `b`, `t`, `d`, `a`, `o`); dates as seconds since 1970, data in base64 as `JSONEncoder` writes it.
        mutating func write(_ value: PropertyListValue) -> Bool {
            switch value {
            case .string(let value):
                raw("{\"s\":")
                guard string(value) else { return false }
            case .integer(let value):
                raw("{\"i\":")
                number(value)
            case .double(let value):
                raw("{\"f\":")
                guard number(value) else { return false }
            case .bool(let value):
                raw("{\"b\":")
                bool(value)
            case .date(let value):
                raw("{\"t\":")
                guard number(value.timeIntervalSince1970) else { return false }
            case .data(let value):
                raw("{\"d\":")
                guard string(value.base64EncodedString()) else { return false }
            case .array(let values):
                raw("{\"a\":[")
                for (index, element) in values.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    guard write(element) else { return false }
                }
                bytes.append(UInt8(ascii: "]"))
            case .dictionary(let values):
                raw("{\"o\":")
                guard write(values) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }
    }
}
