import Foundation

/// Reads the JSON most APNs payloads are written in straight into property-list values, without Foundation's
/// `JSONSerialization` (which builds `NSDictionary`, `NSString` and `NSNumber` objects that ``APNsPayload`` then
/// converts one by one): the push endpoint parses every payload it accepts.
///
/// It reads, with ``FastJSONReader``, a subset: objects, arrays, strings without escapes, `true`, `false`, whole
/// numbers of at most 18 digits, and finite numbers with a fraction or an exponent and at most 12 significant digits.
/// On anything else (an escape, a longer whole number, `null`, a key given twice, a byte-order mark, invalid UTF-8,
/// nesting deeper than ``depthLimit``, anything malformed) it answers `nil`, and the caller parses the body with
/// `JSONSerialization` as before; so what it answers is what `JSONSerialization` and
/// ``PropertyListValue/init(json:path:)`` make of the same body (`FastPayloadJSONTests` compares the two).
///
/// ```swift
/// FastPayloadJSON.object(Data(#"{"aps":{"alert":"Hi","badge":3}}"#.utf8))
/// // ["aps": .dictionary(["alert": .string("Hi"), "badge": .integer(3)])]
/// ```
package enum FastPayloadJSON {
    /// The deepest nesting read; deeper bodies go to `JSONSerialization`.
    static let depthLimit = 32

    /// The body's top-level object, or `nil` when the body is outside the subset (see the type's discussion).
    static func object(_ body: Data) -> [String: PropertyListValue]? {
        body.withUnsafeBytes { object(bytes: $0) }
    }

    /// The top-level object of the JSON text in `bytes`, or `nil` when it is outside the subset (see the type's
    /// discussion): what `JSONSerialization.jsonObject(with:)` and ``PropertyListValue/init(json:path:)`` make of
    /// the same bytes, without copying them into a `Data` first (`unotify import` reads each line of its file in
    /// place).
    ///
    /// ```swift
    /// line.withUnsafeBytes { FastPayloadJSON.object(bytes: $0) } ?? slowPath(line)
    /// ```
    package static func object(bytes: UnsafeRawBufferPointer) -> [String: PropertyListValue]? {
        var reader = FastJSONReader(bytes: bytes, strings: .plain)
        reader.skipSpace()
        guard reader.peek == UInt8(ascii: "{"), let object = object(&reader, depth: 0) else { return nil }
        reader.skipSpace()
        return reader.atEnd ? object : nil
    }

    /// An object, the cursor on its `{`, `depth` levels down from the body's object.
    package static func object(_ reader: inout FastJSONReader, depth: Int) -> [String: PropertyListValue]? {
        guard depth < depthLimit else { return nil }
        var result: [String: PropertyListValue] = [:]
        let read = reader.object { reader, key in
            guard let value = value(&reader, depth: depth + 1) else { return false }
            // A key given twice: JSONSerialization keeps the last value; left to it.
            return result.updateValue(value, forKey: key) == nil
        }
        return read ? result : nil
    }

    /// An array, the cursor on its `[`.
    static func array(_ reader: inout FastJSONReader, depth: Int) -> [PropertyListValue]? {
        guard depth < depthLimit else { return nil }
        var result: [PropertyListValue] = []
        let read = reader.array { reader in
            guard let value = value(&reader, depth: depth + 1) else { return false }
            result.append(value)
            return true
        }
        return read ? result : nil
    }

    /// Any value after optional white space.
    static func value(_ reader: inout FastJSONReader, depth: Int) -> PropertyListValue? {
        reader.skipSpace()
        guard let first = reader.peek else { return nil }
        switch first {
        case UInt8(ascii: "{"): return object(&reader, depth: depth).map { .dictionary($0) }
        case UInt8(ascii: "["): return array(&reader, depth: depth).map { .array($0) }
        case UInt8(ascii: "\""): return reader.string().map { .string($0) }
        case UInt8(ascii: "t"): return reader.literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return reader.literal("false") ? .bool(false) : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(&reader)
        default: return nil  // null, or not JSON
        }
    }

    /// A number: a whole number of 1 to 18 digits is an `Int` (on every platform, as JSONSerialization makes it),
    /// one with a fraction or an exponent and at most 12 significant digits a finite `Double`; longer whole numbers,
    /// and fractions of 13 digits or more (which JSONSerialization on Linux reads a unit or two in the last place
    /// away from the correctly rounded double), are left to JSONSerialization, so a payload's numbers do not depend
    /// on which of the two reads it.
    static func number(_ reader: inout FastJSONReader) -> PropertyListValue? {
        guard let number = reader.number() else { return nil }
        if number.isWhole { return number.integer.map { .integer($0) } }
        guard number.significantDigits <= 12, let double = Double(reader.text(number.range)), double.isFinite else {
            return nil
        }
        return .double(double)
    }
}
