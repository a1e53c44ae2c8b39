import Foundation

/// Apple's `.strings` files: `"key" = "value";` entries in the old-style property-list syntax, and the XML or
/// binary property lists Xcode may compile them to.
public enum StringsFile {
    /// Why a `.strings` file could not be read.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The 1-based line where reading stopped.
        public var line: Int
        /// What was wrong there.
        public var reason: String

        /// Creates an error.
        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }

        /// `line N: reason`.
        public var description: String { "line \(line): \(reason)" }
    }

    /// Reads a `.strings` file's bytes: UTF-8 (with or without a byte-order mark), UTF-16 with a byte-order mark
    /// (or without one when the zero bytes give the order away), or an XML or binary property list whose values are
    /// strings.
    ///
    /// - Throws: ``ParseError`` for text that is not in any of these forms.
    public static func parse(_ data: Data) throws -> [String: String] {
        if data.starts(with: Array("bplist".utf8)) || data.starts(with: Array("<?xml".utf8)) {
            return try parsePropertyList(data)
        }
        guard let text = decodeText(data) else { throw ParseError(line: 1, reason: "not UTF-8 or UTF-16 text") }
        return try parse(text: text)
    }

    /// The text of a `.strings` file, by its byte-order mark or, without one, UTF-8 or a UTF-16 guessed from its
    /// zero bytes.
    static func decodeText(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(validating: bytes.dropFirst(3), as: UTF8.self) }
        if bytes.starts(with: [0xFF, 0xFE]) { return utf16(bytes.dropFirst(2), littleEndian: true) }
        if bytes.starts(with: [0xFE, 0xFF]) { return utf16(bytes.dropFirst(2), littleEndian: false) }
        if let text = String(validating: bytes, as: UTF8.self), !text.contains("\0") { return text }
        guard bytes.count >= 2, bytes.count % 2 == 0 else { return nil }
        // ASCII in UTF-16: the zero high byte is second in little-endian text, first in big-endian text.
        return utf16(bytes[...], littleEndian: bytes[1] == 0 && bytes[0] != 0)
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> String? {
        guard bytes.count % 2 == 0 else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(littleEndian ? first | second << 8 : first << 8 | second)
            index += 2
        }
        return String(validating: units, as: UTF16.self)
    }

    private static func parsePropertyList(_ data: Data) throws -> [String: String] {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ParseError(line: 1, reason: "not a property list: \(error)")
        }
        guard let dictionary = object as? [String: Any] else { throw ParseError(line: 1, reason: "not a dictionary") }
        var result: [String: String] = [:]
        for (key, value) in dictionary {
            if let text = value as? String { result[key] = text }
        }
        return result
    }

    /// Reads the text of a `.strings` file.
    ///
    /// Entries are `key = value;` where each side is a quoted string (`"…"`, escapes `\n \t \r \" \' \\ \a \b \f
    /// \v`, `\U1234` / `\u1234` with surrogate pairs joined, octal `\012`) or an unquoted word of letters, digits
    /// and `_$+/:.-`; `"key";` alone maps the key to itself. `/* … */` and `// …` comments and whitespace may
    /// appear anywhere; the whole may be wrapped in `{ … }`. A later entry for the same key wins.
    ///
    /// - Throws: ``ParseError`` with the line where the syntax breaks.
    public static func parse(text: String) throws -> [String: String] {
        var reader = Reader(Array(text.unicodeScalars))
        var result: [String: String] = [:]
        try reader.skipTrivia()
        let braced = reader.peek == "{"
        if braced {
            reader.advance()
            try reader.skipTrivia()
        }
        while let scalar = reader.peek, !(braced && scalar == "}") {
            let key = try reader.readString()
            try reader.skipTrivia()
            switch reader.peek {
            case ";":
                result[key] = key
            case "=":
                reader.advance()
                try reader.skipTrivia()
                let value = try reader.readString()
                try reader.skipTrivia()
                guard reader.peek == ";" else { throw reader.error("expected ';' after the value of \"\(key)\"") }
                result[key] = value
            default:
                throw reader.error("expected '=' or ';' after \"\(key)\"")
            }
            reader.advance()
            try reader.skipTrivia()
        }
        if braced {
            guard reader.peek == "}" else { throw reader.error("expected '}'") }
            reader.advance()
            try reader.skipTrivia()
            guard reader.peek == nil else { throw reader.error("text after '}'") }
        }
        return result
    }

    /// A cursor over the scalars of a `.strings` text that counts lines.
    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
        func peek(at offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

        mutating func advance() {
            if scalars[index] == "\n" { line += 1 }
            index += 1
        }

        func error(_ reason: String) -> ParseError { ParseError(line: line, reason: reason) }

        mutating func skipTrivia() throws {
            while let scalar = peek {
                if scalar.properties.isWhitespace || scalar == "\u{FEFF}" {
                    advance()
                } else if scalar == "/", peek(at: 1) == "*" {
                    let start = line
                    advance()
                    advance()
                    while peek != nil, !(peek == "*" && peek(at: 1) == "/") { advance() }
                    guard peek != nil else { throw ParseError(line: start, reason: "unterminated comment") }
                    advance()
                    advance()
                } else if scalar == "/", peek(at: 1) == "/" {
                    while let next = peek, next != "\n" { _ = next; advance() }
                } else {
                    return
                }
            }
        }

        static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || "_$+/:.-".unicodeScalars.contains(scalar)
        }

        mutating func readString() throws -> String {
            guard let first = peek else { throw error("expected a string, found the end of the file") }
            if first == "\"" { return try readQuoted() }
            guard Self.isWordScalar(first) else { throw error("unexpected '\(first)'") }
            var word = String.UnicodeScalarView()
            while let scalar = peek, Self.isWordScalar(scalar) {
                word.append(scalar)
                advance()
            }
            return String(word)
        }

        mutating func readQuoted() throws -> String {
            let start = line
            advance()  // the opening quote
            var result = String.UnicodeScalarView()
            var pendingHighSurrogate: UInt32?
            func append(_ value: UInt32) {
                if let high = pendingHighSurrogate {
                    pendingHighSurrogate = nil
                    if (0xDC00...0xDFFF).contains(value) {
                        let combined = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)
                        if let scalar = Unicode.Scalar(combined) { result.append(scalar) }
                        return
                    }
                    result.append("\u{FFFD}")
                }
                if (0xD800...0xDBFF).contains(value) {
                    pendingHighSurrogate = value
                } else {
                    result.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                }
            }
            while true {
                guard let scalar = peek else { throw ParseError(line: start, reason: "unterminated string") }
                advance()
                if scalar == "\"" { break }
                guard scalar == "\\" else {
                    append(scalar.value)
                    continue
                }
                guard let escaped = peek else { throw ParseError(line: start, reason: "unterminated string") }
                advance()
                switch escaped {
                case "n": append(0x0A)
                case "t": append(0x09)
                case "r": append(0x0D)
                case "a": append(0x07)
                case "b": append(0x08)
                case "f": append(0x0C)
                case "v": append(0x0B)
                case "U", "u":
                    var value: UInt32 = 0
                    var digits = 0
                    while digits < 4, let hex = peek, hex.isASCII, let digit = UInt32(String(hex), radix: 16) {
                        value = value * 16 + digit
                        digits += 1
                        advance()
                    }
                    guard digits > 0 else { throw error("\\\(escaped) without hexadecimal digits") }
                    append(value)
                case "0"..."7":
                    var value = escaped.value - 0x30
                    var digits = 1
                    while digits < 3, let octal = peek, ("0"..."7").contains(octal) {
                        value = value * 8 + (octal.value - 0x30)
                        digits += 1
                        advance()
                    }
                    append(value)
                default:
                    // \" \' \\ and any other escaped character stand for themselves.
                    append(escaped.value)
                }
            }
            if pendingHighSurrogate != nil { result.append("\u{FFFD}") }
            return String(result)
        }
    }
}
