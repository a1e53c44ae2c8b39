extension String {
    /// The text with `&`, `<`, `>`, `"` and `'` replaced by character references: safe inside an element and inside
    /// a quoted attribute value. Every piece of text the center did not write itself goes through this.
    ///
    /// ```swift
    /// "<b>\"hi\"</b>".htmlEscaped   // "&lt;b&gt;&quot;hi&quot;&lt;/b&gt;"
    /// ```
    package var htmlEscaped: String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for character in unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\0": escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// The text percent-encoded for one path segment or query value (unreserved characters kept).
    package var urlComponentEncoded: String {
        var encoded = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0x0f)])
            }
        }
        return encoded
    }
}
