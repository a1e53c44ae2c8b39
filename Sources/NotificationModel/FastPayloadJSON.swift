import Foundation

/// Reads the JSON most APNs payloads are written in straight into property-list values, without Foundation's
/// `JSONSerialization` (which builds `NSDictionary`, `NSString` and `NSNumber` objects that ``APNsPayload`` then
/// converts one by one): the push endpoint parses every payload it accepts.
///
/// It reads a subset: objects, arrays, strings without escapes, `true`, `false`, whole numbers of at most 18 digits,
/// and finite numbers with a fraction or an exponent. On anything else (an escape, a longer whole number, `null`, a
/// key given twice, a byte-order mark, invalid UTF-8, nesting deeper than ``depthLimit``, anything malformed) it
/// answers `nil`, and the caller parses the body with `JSONSerialization` as before; so what it answers is what
/// `JSONSerialization` and ``PropertyListValue/init(json:path:)`` make of the same body (`FastPayloadJSONTests`
/// compares the two).
///
/// ```swift
/// FastPayloadJSON.object(Data(#"{"aps":{"alert":"Hi","badge":3}}"#.utf8))
/// // ["aps": .dictionary(["alert": .string("Hi"), "badge": .integer(3)])]
/// ```
enum FastPayloadJSON {
    /// The deepest nesting read; deeper bodies go to `JSONSerialization`.
    static let depthLimit = 32

    /// The body's top-level object, or `nil` when the body is outside the subset (see the type's discussion).
    static func object(_ body: Data) -> [String: PropertyListValue]? {
        body.withUnsafeBytes { raw -> [String: PropertyListValue]? in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            reader.skipSpace()
            guard reader.peek == UInt8(ascii: "{"), let object = reader.object(depth: 0) else { return nil }
            reader.skipSpace()
            return reader.atEnd ? object : nil
        }
    }

    /// A cursor over the body's bytes.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Skips JSON's whitespace: space, tab, line feed, carriage return.
        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// Reads `byte` after optional whitespace.
        mutating func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard peek == byte else { return false }
            index += 1
            return true
        }

        /// An object, the cursor on its `{`.
        mutating func object(depth: Int) -> [String: PropertyListValue]? {
            guard depth < FastPayloadJSON.depthLimit else { return nil }
            index += 1
            var result: [String: PropertyListValue] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return result
            }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                guard expect(UInt8(ascii: ":")), let value = value(depth: depth + 1) else { return nil }
                // A key given twice: JSONSerialization keeps the last value; left to it.
                guard result.updateValue(value, forKey: key) == nil else { return nil }
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return result
                default: return nil
                }
            }
        }

        /// An array, the cursor on its `[`.
        mutating func array(depth: Int) -> [PropertyListValue]? {
            guard depth < FastPayloadJSON.depthLimit else { return nil }
            index += 1
            var result: [PropertyListValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return result
            }
            while true {
                guard let value = value(depth: depth + 1) else { return nil }
                result.append(value)
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return result
                default: return nil
                }
            }
        }

        /// Any value after optional whitespace.
        mutating func value(depth: Int) -> PropertyListValue? {
            skipSpace()
            guard let first = peek else { return nil }
            switch first {
            case UInt8(ascii: "{"): return object(depth: depth).map { .dictionary($0) }
            case UInt8(ascii: "["): return array(depth: depth).map { .array($0) }
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil  // null, or not JSON
            }
        }

        /// A string without escapes, control characters or U+FEFF (which JSONSerialization drops at a string's
        /// start), valid UTF-8, the cursor on its opening quote.
        mutating func string() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            var ascii = true
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") { break }
                // An escape, or a control character JSON does not allow unescaped: left to JSONSerialization.
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                if byte >= 0x80 {
                    ascii = false
                    // U+FEFF (EF BB BF): left to JSONSerialization, which strips it at the start of a string.
                    if byte == 0xEF, end + 2 < bytes.count, bytes[end + 1] == 0xBB, bytes[end + 2] == 0xBF { return nil }
                }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if ascii { return String(decoding: slice, as: UTF8.self) }
            guard #available(macOS 15.0, iOS 18.0, *) else { return nil }
            return String(validating: slice, as: UTF8.self)
        }

        /// `true` or `false` (what follows is the caller's to check: a `,`, `}` or `]`).
        mutating func word(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: count)
            for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
            index += count
            return true
        }

        /// A number in JSON's grammar: a whole number of 1 to 18 digits is an `Int` (on every platform, as
        /// JSONSerialization makes it), one with a fraction or an exponent and at most 12 significant digits a finite
        /// `Double`; longer whole numbers, and fractions of 13 digits or more (which JSONSerialization on Linux reads
        /// a unit or two in the last place away from the correctly rounded double), are left to JSONSerialization,
        /// so a payload's numbers do not depend on which of the two reads it.
        mutating func number() -> PropertyListValue? {
            let start = index
            var position = index
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            var value = 0
            while position < bytes.count, Self.isDigit(bytes[position]) {
                value = value &* 10 &+ Int(bytes[position] - UInt8(ascii: "0"))
                position += 1
            }
            let digits = position - digitsStart
            guard digits >= 1, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
            var whole = true
            // Significant digits of the mantissa: the whole part's (without its leading zero) and the fraction's
            // (without the zeros that lead it when the whole part is 0).
            var significant = digits == 1 && bytes[digitsStart] == UInt8(ascii: "0") ? 0 : digits
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                whole = false
                position += 1
                let fraction = position
                while position < bytes.count, Self.isDigit(bytes[position]) {
                    if significant > 0 || bytes[position] != UInt8(ascii: "0") { significant += 1 }
                    position += 1
                }
                guard position > fraction else { return nil }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                whole = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                let exponent = position
                while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
                guard position > exponent else { return nil }
            }
            index = position
            if whole {
                guard digits <= 18 else { return nil }
                return .integer(bytes[start] == UInt8(ascii: "-") ? -value : value)
            }
            guard significant <= 12 else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let double = Double(text), double.isFinite else { return nil }
            return .double(double)
        }

        private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
