/// A cursor over the bytes of JSON text, for the hand-written readers that parse JSON straight into the values they
/// need: ``FastPayloadJSON`` (APNs payloads), the store's `FastSpecJSON` (stored specs) and `unotify import`'s lines.
///
/// It reads RFC 8259's grammar in pieces (white space, strings, numbers, `true` and `false`, objects and arrays
/// member by member) and answers `nil` or `false` for anything outside its subset or malformed, never traps; the
/// caller then reads the input with Foundation, as before. There is no `null`: each caller leaves it to Foundation.
/// Nesting depth is the caller's to limit.
///
/// ```swift
/// var reader = FastJSONReader(bytes: bytes, strings: .plain)
/// reader.skipSpace()
/// var title: String?
/// let read = reader.peek == UInt8(ascii: "{") && reader.object { reader, key in
///     reader.skipSpace()
///     title = key == "title" ? reader.string() : nil
///     return title != nil
/// }
/// ```
package struct FastJSONReader {
    /// Which strings the reader takes.
    package enum Strings: Sendable {
        /// Strings that Foundation's `JSONSerialization` on Linux reads as a correct reader does: no escapes, and no
        /// U+FEFF (which it drops at a string's start). What ``FastPayloadJSON`` and `unotify import` read.
        case plain
        /// Strings with the escapes `JSONEncoder` writes for the text the store keeps: `\"`, `\\`, `\/`, `\n`, `\t`,
        /// `\r` (others, `\u` among them, are outside). What `FastSpecJSON` reads.
        case encoderEscapes
    }

    /// A number in JSON's grammar, as read: its bytes and what its callers need to convert it without reading
    /// them again.
    package struct Number {
        /// Where its text is in the input.
        package var range: Range<Int>
        /// Whether it has neither a fraction nor an exponent.
        package var isWhole: Bool
        /// How many digits its whole part has.
        package var wholeDigits: Int
        /// Its significant digits: the whole part's without a lone leading zero, and the fraction's without the
        /// zeros that lead it when the whole part is 0 (the exponent's are not counted).
        package var significantDigits: Int
        /// Its whole part's value, with its sign, when it is whole and has at most 18 digits (never overflowing).
        package var integer: Int?

        @inlinable
        package init(range: Range<Int>, isWhole: Bool, wholeDigits: Int, significantDigits: Int, integer: Int?) {
            self.range = range
            self.isWhole = isWhole
            self.wholeDigits = wholeDigits
            self.significantDigits = significantDigits
            self.integer = integer
        }
    }

    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// The position of the next byte to read.
    package var index = 0
    @usableFromInline let strings: Strings

    /// A reader at the start of `bytes`, taking the strings `strings` says.
    @inlinable
    package init(bytes: UnsafeRawBufferPointer, strings: Strings) {
        self.bytes = bytes
        self.strings = strings
    }

    /// Whether every byte was read.
    @inlinable package var atEnd: Bool { index == bytes.count }

    /// The next byte, `nil` at the end.
    @inlinable package var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The bytes of `range` (a ``Number``'s, for example).
    @inlinable
    package func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Skips JSON's white space: space, tab, line feed, carriage return.
    @inlinable
    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Reads `byte` after optional white space.
    @inlinable
    package mutating func expect(_ byte: UInt8) -> Bool {
        skipSpace()
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Reads `text` (`true` or `false`) if it comes next; what follows is the caller's to check.
    @inlinable
    package mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// An object, the cursor on its `{`: `member` is called with each key, the cursor after its colon, and reads
    /// the member's value (after optional white space). `false` when `member` answers `false` or the object is
    /// malformed. Keys given twice are the caller's to notice.
    @inlinable
    package mutating func object(_ member: (inout FastJSONReader, String) -> Bool) -> Bool {
        index += 1
        skipSpace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipSpace()
            guard let key = string(), expect(UInt8(ascii: ":")), member(&self, key) else { return false }
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// An array, the cursor on its `[`: `element` is called for each element and reads it (after optional white
    /// space). `false` when `element` answers `false` or the array is malformed.
    @inlinable
    package mutating func array(_ element: (inout FastJSONReader) -> Bool) -> Bool {
        index += 1
        skipSpace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            guard element(&self) else { return false }
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// A string, the cursor on its opening quote: valid UTF-8 without control characters, with only the escapes
    /// ``strings`` allows; `nil` for anything else (the cursor is then anywhere).
    @inlinable
    package mutating func string() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        var ascii = true
        var escaped = false
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            // A control character JSON does not allow unescaped.
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") {
                guard strings == .encoderEscapes else { return nil }
                escaped = true
                end += 2
                continue
            }
            if byte >= 0x80 {
                ascii = false
                // U+FEFF (EF BB BF): left to JSONSerialization, which strips it at the start of a string.
                if strings == .plain, byte == 0xEF, end + 2 < bytes.count, bytes[end + 1] == 0xBB,
                    bytes[end + 2] == 0xBF
                {
                    return nil
                }
            }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if escaped { return Self.unescaped(slice) }
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard #available(macOS 15.0, iOS 18.0, *) else { return nil }
        return String(validating: slice, as: UTF8.self)
    }

    /// The text of a string's bytes with the escapes of ``Strings/encoderEscapes`` replaced.
    @usableFromInline
    static func unescaped(_ slice: UnsafeRawBufferPointer) -> String? {
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
        guard #available(macOS 15.0, iOS 18.0, *) else { return nil }
        return String(validating: result, as: UTF8.self)
    }

    /// A number in JSON's grammar, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, the cursor on its first byte;
    /// `nil` when malformed (a leading zero followed by a digit among them).
    @inlinable
    package mutating func number() -> Number? {
        let start = index
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        var value = 0
        while position < bytes.count, Self.isDigit(bytes[position]) {
            value = value &* 10 &+ Int(bytes[position] &- UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - digitsStart
        guard digits >= 1, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        var whole = true
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
        return Number(
            range: start..<position, isWhole: whole, wholeDigits: digits, significantDigits: significant,
            integer: whole && digits <= 18 ? (negative ? -value : value) : nil)
    }

    @inlinable
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
