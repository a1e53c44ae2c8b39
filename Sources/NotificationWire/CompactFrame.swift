import Foundation
import NotificationModel

/// The binary frames of protocol version 2, for the two messages every add sends: the request
/// `request(id:, .add(spec))` and its reply `reply(id:, .done)`. Everything else, and an add whose spec holds what
/// these frames do not carry, stays one line of JSON; a connection mixes both freely once version 2 was agreed in
/// ``Hello``/``Welcome``.
///
/// A frame is one line like a JSON message: the byte `0x01` (no JSON text starts with it), a kind byte (`a` an add,
/// `d` a done reply), then the fields, with every `0x0A` (newline) and `0x1B` of the fields written as `0x1B 'n'` and
/// `0x1B 'e'`, so the line framing holds. Fields: unsigned integers as LEB128, signed ones zigzag LEB128, `Double`
/// and `Float` as their IEEE bits (little-endian), strings as a byte count and UTF-8, optionals as a byte 0 or 1 and
/// the value.
///
/// An add frame carries every field of a ``RequestSpec`` except attachments, a communication sender, APNs options,
/// and triggers other than a time interval or none: a spec with one of those is sent as JSON. Numbers JSON cannot
/// carry (`nan`, infinities) are refused as JSON refuses them.
///
/// ```swift
/// let frame = CompactFrame.add(id: 7, spec) ?? (try WireProtocol.encode(ClientMessage.request(id: 7, .add(spec))))
/// let message = try WireProtocol.decodeClientMessage(from: frame.dropLast())
/// ```
public enum CompactFrame {
    /// The first byte of a frame.
    public static let marker: UInt8 = 0x01

    /// Why a frame could not be read.
    public struct Malformed: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    private static let addKind = UInt8(ascii: "a")
    private static let doneKind = UInt8(ascii: "d")
    private static let escape: UInt8 = 0x1B
    /// The deepest nesting of `userInfo` values a frame may hold (the engine's own limit is lower).
    private static let maximumDepth = 64

    // MARK: - Writing

    /// The frame of `request(id:, .add(spec))`, newline included; `nil` when the spec holds something the frame does
    /// not carry.
    public static func add(id: UInt64, _ spec: RequestSpec) -> Data? {
        var writer = Writer()
        writer.bytes.append(addKind)
        writer.unsigned(id)
        guard writer.write(spec) else { return nil }
        return writer.frame()
    }

    /// The frame of `reply(id:, .done)`, newline included.
    public static func done(id: UInt64) -> Data {
        var writer = Writer()
        writer.bytes.append(doneKind)
        writer.unsigned(id)
        return writer.frame()
    }

    private struct Writer {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(256) }

        /// The marker, the escaped fields and the newline.
        ///
        /// Written into the frame's bytes in one pass, its size counted first: `Data.append` byte by byte, which a
        /// frame with a newline or an escape byte among its fields took (an id or a length of 10 is enough), cost
        /// 16% of a 64-client bench's CPU (`perf`, session 13).
        func frame() -> Data {
            var escapes = 0
            for byte in bytes where byte == 0x0A || byte == CompactFrame.escape { escapes += 1 }
            var line = Data(count: bytes.count + escapes + 2)
            line.withUnsafeMutableBytes { line in
                line[0] = CompactFrame.marker
                var index = 1
                if escapes == 0 {
                    bytes.withUnsafeBytes { fields in
                        UnsafeMutableRawBufferPointer(rebasing: line[1..<(1 + fields.count)]).copyMemory(from: fields)
                    }
                    index += bytes.count
                } else {
                    for byte in bytes {
                        switch byte {
                        case 0x0A:
                            line[index] = CompactFrame.escape
                            line[index + 1] = UInt8(ascii: "n")
                            index += 2
                        case CompactFrame.escape:
                            line[index] = CompactFrame.escape
                            line[index + 1] = UInt8(ascii: "e")
                            index += 2
                        default:
                            line[index] = byte
                            index += 1
                        }
                    }
                }
                line[index] = 0x0A
            }
            return line
        }

        mutating func unsigned(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func signed(_ value: Int) {
            let value = Int64(value)
            unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        }

        mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

        mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                unsigned(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func optional(_ value: String?) {
            bool(value != nil)
            if let value { string(value) }
        }

        /// `false` for a number JSON cannot carry.
        mutating func double(_ value: Double) -> Bool {
            guard value.isFinite else { return false }
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            return true
        }

        mutating func float(_ value: Float) -> Bool {
            guard value.isFinite else { return false }
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            return true
        }

        mutating func write(_ spec: RequestSpec) -> Bool {
            guard spec.apns == nil else { return false }
            string(spec.identifier)
            switch spec.missedFirePolicy {
            case .deliver: bytes.append(0)
            case .skip: bytes.append(1)
            case .deliverIfWithin(let seconds):
                bytes.append(2)
                guard double(seconds) else { return false }
            }
            switch spec.trigger {
            case nil: bytes.append(0)
            case .timeInterval(let interval, let repeats)?:
                bytes.append(1)
                guard double(interval) else { return false }
                bool(repeats)
            default: return false
            }
            return write(spec.content)
        }

        mutating func write(_ content: NotificationPayload) -> Bool {
            guard content.attachments.isEmpty, content.communication == nil else { return false }
            string(content.title)
            string(content.subtitle)
            string(content.body)
            bool(content.badge != nil)
            if let badge = content.badge { signed(badge) }
            bool(content.sound != nil)
            if let sound = content.sound {
                optional(sound.name)
                bool(sound.isCritical)
                bool(sound.isRingtone)
                bool(sound.volume != nil)
                if let volume = sound.volume { guard float(volume) else { return false } }
                optional(sound.bundleDirectory)
            }
            string(content.launchImageName)
            guard write(content.userInfo) else { return false }
            string(content.categoryIdentifier)
            string(content.threadIdentifier)
            string(content.summaryArgument)
            signed(content.summaryArgumentCount)
            optional(content.targetContentIdentifier)
            unsigned(UInt64(content.interruptionLevel))
            guard double(content.relevanceScore) else { return false }
            optional(content.filterCriteria)
            bool(content.appAppearance != nil)
            if let appearance = content.appAppearance {
                optional(appearance.displayName)
                optional(appearance.icon)
            }
            return true
        }

        mutating func write(_ dictionary: [String: PropertyListValue]) -> Bool {
            unsigned(UInt64(dictionary.count))
            for (key, value) in dictionary {
                string(key)
                guard write(value) else { return false }
            }
            return true
        }

        mutating func write(_ value: PropertyListValue) -> Bool {
            switch value {
            case .string(let text):
                bytes.append(UInt8(ascii: "s"))
                string(text)
            case .integer(let number):
                bytes.append(UInt8(ascii: "i"))
                signed(number)
            case .double(let number):
                bytes.append(UInt8(ascii: "d"))
                return double(number)
            case .bool(let flag):
                bytes.append(UInt8(ascii: "b"))
                bool(flag)
            case .date(let date):
                bytes.append(UInt8(ascii: "t"))
                return double(date.timeIntervalSinceReferenceDate)
            case .data(let data):
                bytes.append(UInt8(ascii: "x"))
                unsigned(UInt64(data.count))
                bytes.append(contentsOf: data)
            case .array(let values):
                bytes.append(UInt8(ascii: "a"))
                unsigned(UInt64(values.count))
                for value in values { guard write(value) else { return false } }
            case .dictionary(let dictionary):
                bytes.append(UInt8(ascii: "o"))
                return write(dictionary)
            }
            return true
        }
    }

    // MARK: - Reading

    /// Whether `line` (without its newline) is a frame rather than JSON.
    public static func isFrame(_ line: some Collection<UInt8>) -> Bool { line.first == marker }

    /// Reads a client's frame (without its newline).
    /// - Throws: ``Malformed`` for a frame that is not an add, is truncated, has bytes left over or a string that is
    ///   not UTF-8.
    public static func clientMessage(from line: some Collection<UInt8>) throws(Malformed) -> ClientMessage {
        var reader = try Reader(line)
        guard try reader.byte() == addKind else { throw Malformed(description: "not a frame a client sends") }
        let id = try reader.unsigned()
        let spec = try reader.spec()
        try reader.end()
        return .request(id: id, .add(spec))
    }

    /// Reads a client's frame from a line's bytes in memory (without its newline), as ``clientMessage(from:)`` does.
    ///
    /// For the daemon's reader with NIO's buffer at hand: it copied each line into a `Data` first, whose bytes the
    /// generic reader then took one by one through `Data`'s iterator (1.2% of the daemon's samples at 64 clients in
    /// `perf`, session 15); this entry is specialized here over the bytes in place.
    ///
    /// ```swift
    /// let message = try line.withUnsafeReadableBytes { try CompactFrame.clientMessage(fromBytes: $0) }
    /// ```
    /// - Throws: As ``clientMessage(from:)``.
    public static func clientMessage(fromBytes line: UnsafeRawBufferPointer) throws(Malformed) -> ClientMessage {
        try clientMessage(from: line)
    }

    /// Reads the daemon's frame (without its newline).
    /// - Throws: ``Malformed`` for a frame that is not a done reply, is truncated or has bytes left over.
    public static func serverMessage(from line: some Collection<UInt8>) throws(Malformed) -> ServerMessage {
        var reader = try Reader(line)
        guard try reader.byte() == doneKind else { throw Malformed(description: "not a frame the daemon sends") }
        let id = try reader.unsigned()
        try reader.end()
        return .reply(id: id, .done)
    }

    /// Reads the daemon's frame from a line's bytes in memory (without its newline), as ``serverMessage(from:)`` does.
    ///
    /// For a caller in another module with the bytes at hand (the client's reply router, reading NIO's buffer): there
    /// the generic ``serverMessage(from:)`` runs unspecialized, each byte through the `Collection` witnesses (6% of the
    /// client's samples at 64 clients in `perf`); this entry is specialized here.
    ///
    /// ```swift
    /// let reply = try line.withUnsafeReadableBytes { try CompactFrame.serverMessage(fromBytes: $0) }
    /// ```
    /// - Throws: As ``serverMessage(from:)``.
    public static func serverMessage(fromBytes line: UnsafeRawBufferPointer) throws(Malformed) -> ServerMessage {
        try serverMessage(from: line)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        /// Takes the marker off and undoes the escapes.
        init(_ line: some Collection<UInt8>) throws(Malformed) {
            guard line.first == CompactFrame.marker else { throw Malformed(description: "no frame marker") }
            let fields = line.dropFirst()
            guard fields.contains(CompactFrame.escape) else {
                bytes = Array(fields)
                return
            }
            var unescaped: [UInt8] = []
            unescaped.reserveCapacity(fields.count)
            var escaping = false
            for byte in fields {
                if escaping {
                    switch byte {
                    case UInt8(ascii: "n"): unescaped.append(0x0A)
                    case UInt8(ascii: "e"): unescaped.append(CompactFrame.escape)
                    default: throw Malformed(description: "an unknown escape in a frame")
                    }
                    escaping = false
                } else if byte == CompactFrame.escape {
                    escaping = true
                } else {
                    unescaped.append(byte)
                }
            }
            guard !escaping else { throw Malformed(description: "a frame ends inside an escape") }
            bytes = unescaped
        }

        func truncated() -> Malformed { Malformed(description: "a truncated frame") }

        mutating func end() throws(Malformed) {
            guard offset == bytes.count else { throw Malformed(description: "bytes left over after a frame") }
        }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw truncated() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bool() throws(Malformed) -> Bool {
            switch try byte() {
            case 0: return false
            case 1: return true
            default: throw Malformed(description: "a flag that is neither 0 nor 1")
            }
        }

        mutating func unsigned() throws(Malformed) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 64, shift < 63 || byte <= 1 else { throw Malformed(description: "an integer too large") }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        mutating func signed() throws(Malformed) -> Int {
            let raw = try unsigned()
            return Int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
        }

        mutating func count() throws(Malformed) -> Int {
            let count = try unsigned()
            guard count <= UInt64(bytes.count - offset) else { throw truncated() }
            return Int(count)
        }

        /// A string's bytes, validated as UTF-8. ASCII, which identifiers, titles and keys mostly are, needs no
        /// validation beyond the check that every byte is below 0x80: it is decoded without `String(validating:as:)`,
        /// whose generic entry instantiated metadata at every call (three strings per add, 0.7% of a daemon's samples
        /// at 64 clients in `perf`).
        mutating func string() throws(Malformed) -> String {
            let count = try count()
            defer { offset += count }
            let text = bytes.withUnsafeBufferPointer { buffer -> String? in
                let utf8 = UnsafeBufferPointer(rebasing: buffer[offset..<(offset + count)])
                if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
                return String(validating: utf8, as: UTF8.self)
            }
            guard let text else { throw Malformed(description: "a string that is not UTF-8") }
            return text
        }

        mutating func optionalString() throws(Malformed) -> String? {
            try bool() ? try string() : nil
        }

        mutating func bits(_ size: Int) throws(Malformed) -> UInt64 {
            guard bytes.count - offset >= size else { throw truncated() }
            var value: UInt64 = 0
            for index in 0..<size { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += size
            return value
        }

        mutating func double() throws(Malformed) -> Double {
            let value = Double(bitPattern: try bits(8))
            guard value.isFinite else { throw Malformed(description: "a number JSON cannot carry") }
            return value
        }

        mutating func float() throws(Malformed) -> Float {
            let value = Float(bitPattern: UInt32(try bits(4)))
            guard value.isFinite else { throw Malformed(description: "a number JSON cannot carry") }
            return value
        }

        mutating func spec() throws(Malformed) -> RequestSpec {
            let identifier = try string()
            let policy: MissedFirePolicy
            switch try byte() {
            case 0: policy = .deliver
            case 1: policy = .skip
            case 2: policy = .deliverIfWithin(try double())
            default: throw Malformed(description: "an unknown missed-fire policy")
            }
            let trigger: TriggerSpec?
            switch try byte() {
            case 0: trigger = nil
            case 1: trigger = .timeInterval(try double(), repeats: try bool())
            default: throw Malformed(description: "an unknown trigger")
            }
            return RequestSpec(identifier: identifier, content: try content(), trigger: trigger, missedFirePolicy: policy)
        }

        mutating func content() throws(Malformed) -> NotificationPayload {
            var content = NotificationPayload()
            content.title = try string()
            content.subtitle = try string()
            content.body = try string()
            content.badge = try bool() ? try signed() : nil
            if try bool() {
                var sound = SoundSpec()
                sound.name = try optionalString()
                sound.isCritical = try bool()
                sound.isRingtone = try bool()
                sound.volume = try bool() ? try float() : nil
                sound.bundleDirectory = try optionalString()
                content.sound = sound
            }
            content.launchImageName = try string()
            content.userInfo = try dictionary(depth: 0)
            content.categoryIdentifier = try string()
            content.threadIdentifier = try string()
            content.summaryArgument = try string()
            content.summaryArgumentCount = try signed()
            content.targetContentIdentifier = try optionalString()
            let level = try unsigned()
            guard let interruptionLevel = UInt(exactly: level) else { throw Malformed(description: "an integer too large") }
            content.interruptionLevel = interruptionLevel
            content.relevanceScore = try double()
            content.filterCriteria = try optionalString()
            if try bool() {
                // Set one by one: the initializer turns empty strings into nil, and the JSON decoder does not.
                var appearance = AppAppearance()
                appearance.displayName = try optionalString()
                appearance.icon = try optionalString()
                content.appAppearance = appearance
            }
            return content
        }

        mutating func dictionary(depth: Int) throws(Malformed) -> [String: PropertyListValue] {
            let count = try count()
            var dictionary: [String: PropertyListValue] = [:]
            dictionary.reserveCapacity(count)
            for _ in 0..<count {
                let key = try string()
                dictionary[key] = try value(depth: depth + 1)
            }
            return dictionary
        }

        mutating func value(depth: Int) throws(Malformed) -> PropertyListValue {
            guard depth <= CompactFrame.maximumDepth else { throw Malformed(description: "values nested too deeply") }
            switch try byte() {
            case UInt8(ascii: "s"): return .string(try string())
            case UInt8(ascii: "i"): return .integer(try signed())
            case UInt8(ascii: "d"): return .double(try double())
            case UInt8(ascii: "b"): return .bool(try bool())
            case UInt8(ascii: "t"): return .date(Date(timeIntervalSinceReferenceDate: try double()))
            case UInt8(ascii: "x"):
                let count = try count()
                defer { offset += count }
                return .data(Data(bytes[offset..<(offset + count)]))
            case UInt8(ascii: "a"):
                let count = try count()
                var values: [PropertyListValue] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(try value(depth: depth + 1)) }
                return .array(values)
            case UInt8(ascii: "o"): return .dictionary(try dictionary(depth: depth))
            default: throw Malformed(description: "an unknown value type")
            }
        }
    }
}
