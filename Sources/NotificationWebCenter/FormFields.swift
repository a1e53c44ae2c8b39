/// The fields of an `application/x-www-form-urlencoded` body or a query string, decoded strictly: a malformed
/// percent escape or bytes that are not UTF-8 are an error, never a guess.
///
/// ```swift
/// let form = try FormFields(parsing: "app=com.example&text=Hello+there%21")
/// form["text"]   // "Hello there!"
/// ```
package struct FormFields: Sendable, Hashable {
    /// The fields in order; a name may repeat.
    var pairs: [(name: String, value: String)] { zip(names, values).map { ($0, $1) } }
    private var names: [String] = []
    private var values: [String] = []

    /// Parses `name=value&name=value`.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/badRequest``) for a bad escape or invalid UTF-8.
    package init(parsing text: Substring) throws(WebCenterError) {
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            names.append(try Self.decode(pieces[0]))
            values.append(pieces.count > 1 ? try Self.decode(pieces[1]) : "")
        }
    }

    /// Parses `name=value&name=value`.
    package init(parsing text: String) throws(WebCenterError) {
        try self.init(parsing: text[...])
    }

    /// The first value of the field, or `nil` when it is missing.
    package subscript(name: String) -> String? {
        names.firstIndex(of: name).map { values[$0] }
    }

    /// The first value of the field.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/badRequest``) when it is missing or empty.
    func required(_ name: String) throws(WebCenterError) -> String {
        guard let value = self[name], !value.isEmpty else {
            throw WebCenterError(.badRequest, "the form has no '\(name)' field")
        }
        return value
    }

    package static func == (left: FormFields, right: FormFields) -> Bool {
        left.names == right.names && left.values == right.values
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(names)
        hasher.combine(values)
    }

    private static func decode(_ text: Substring) throws(WebCenterError) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first < utf8.endIndex, utf8.index(after: first) < utf8.endIndex,
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[utf8.index(after: first)])
                else { throw WebCenterError(.badRequest, "the form data has a malformed percent escape") }
                bytes.append(high << 4 | low)
                index = utf8.index(after: first)
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw WebCenterError(.badRequest, "the form data is not UTF-8")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
