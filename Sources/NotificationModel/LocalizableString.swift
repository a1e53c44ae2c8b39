import Foundation

/// A string to be localized when its notification is delivered, not when it is scheduled: the value
/// `NSString.localizedUserNotificationString(forKey:arguments:)` returns.
///
/// The API has to return a `String`, and that string travels through `UNNotificationContent`, the store, the wire
/// protocol and the daemon as ordinary text. So the key, its arguments and the app's bundle directory are written
/// as JSON between two private-use code points of plane 16 that no font or human text uses, ``startDelimiter``
/// (U+10FF00) and ``endDelimiter`` (U+10FF01):
///
/// ```text
/// U+10FF00 {"args":[{"int":3}],"bundle":"/opt/nagme","key":"%d new messages"} U+10FF01
/// ```
///
/// A title, subtitle or body may hold such a segment alone (what the API returns) or within other text (what
/// concatenating it gives); ``segments(of:)`` splits a text into both kinds. Inside the JSON, any delimiter
/// character of an argument is written as a JSON escape (`\udbff\udf00`), so a segment ends at the first
/// ``endDelimiter`` after its start.
public struct LocalizableString: Sendable, Hashable, Codable {
    /// The key looked up in the app's `Localizable` tables; also the format shown when no table has it.
    public var key: String
    /// The values formatted into the localized format at delivery time.
    public var arguments: [Argument]
    /// The folder holding the app's `<language>.lproj/Localizable.strings` and `Localizable.xcstrings`; `nil`
    /// when the app had none (the key is then shown, formatted).
    public var bundleDirectory: String?

    /// Creates a localizable string.
    public init(key: String, arguments: [Argument] = [], bundleDirectory: String? = nil) {
        self.key = key
        self.arguments = arguments
        self.bundleDirectory = bundleDirectory
    }

    /// One argument of a localizable string, typed so that `%d`, `%.1f` and `%@` format it as the app meant.
    public enum Argument: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Text, for `%@` (numbers conversions read a number from it).
        case string(String)
        /// A signed integer, for `%d`, `%ld`, `%i`, `%@`.
        case int(Int64)
        /// An unsigned integer too large for ``int(_:)``.
        case uint(UInt64)
        /// A floating-point number, for `%f`, `%.1f`, `%g`, `%@`.
        case double(Double)

        /// The argument as `%@` shows it: the text, or the number as `NSNumber`'s description writes it.
        public var description: String {
            switch self {
            case let .string(text): return text
            case let .int(value): return String(value)
            case let .uint(value): return String(value)
            case let .double(value):
                if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
                return String(value)
            }
        }

        private enum CodingKeys: String, CodingKey {
            case string, int, uint, double
        }

        /// Decodes the one-key object ``encode(to:)`` writes.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let text = try container.decodeIfPresent(String.self, forKey: .string) {
                self = .string(text)
            } else if let value = try container.decodeIfPresent(Int64.self, forKey: .int) {
                self = .int(value)
            } else if let value = try container.decodeIfPresent(UInt64.self, forKey: .uint) {
                self = .uint(value)
            } else if let value = try container.decodeIfPresent(Double.self, forKey: .double) {
                self = .double(value)
            } else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "an argument needs string, int, uint or double"))
            }
        }

        /// Writes a one-key object: `{"string": "…"}`, `{"int": 3}`, `{"uint": 3}` or `{"double": 1.5}`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case let .string(text): try container.encode(text, forKey: .string)
            case let .int(value): try container.encode(value, forKey: .int)
            case let .uint(value): try container.encode(value, forKey: .uint)
            case let .double(value): try container.encode(value, forKey: .double)
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case key
        case arguments = "args"
        case bundleDirectory = "bundle"
    }

    /// Decodes the JSON ``encoded`` holds between its delimiters.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        arguments = try container.decodeIfPresent([Argument].self, forKey: .arguments) ?? []
        bundleDirectory = try container.decodeIfPresent(String.self, forKey: .bundleDirectory)
    }

    /// Writes the key, and the arguments and bundle directory when there are any.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        if !arguments.isEmpty { try container.encode(arguments, forKey: .arguments) }
        try container.encodeIfPresent(bundleDirectory, forKey: .bundleDirectory)
    }

    /// The private-use code point U+10FF00 that opens an encoded segment.
    public static let startDelimiter: Unicode.Scalar = "\u{10FF00}"
    /// The private-use code point U+10FF01 that closes an encoded segment.
    public static let endDelimiter: Unicode.Scalar = "\u{10FF01}"

    /// The string that stands for this value in notification content until delivery.
    public var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSON has no infinity or NaN: such a double is written as its text. Nothing else can fail to encode.
        var value = self
        value.arguments = arguments.map { argument in
            if case let .double(number) = argument, !number.isFinite { return .string(String(number)) }
            return argument
        }
        let data = (try? encoder.encode(value)) ?? Data()
        var json = ""
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            switch scalar {
            case Self.startDelimiter: json += "\\udbff\\udf00"
            case Self.endDelimiter: json += "\\udbff\\udf01"
            default: json.unicodeScalars.append(scalar)
            }
        }
        var result = String(Self.startDelimiter)
        result += json
        result.unicodeScalars.append(Self.endDelimiter)
        return result
    }

    /// The value a text encodes when the whole text is one encoded segment; `nil` otherwise.
    public static func decode(_ text: String) -> LocalizableString? {
        let parts = segments(of: text)
        guard parts.count == 1, case let .localizable(value) = parts[0] else { return nil }
        return value
    }

    /// Whether a text holds at least one encoded segment start (a cheap test before ``segments(of:)``).
    public static func mayContainEncoded(_ text: String) -> Bool {
        text.unicodeScalars.contains(startDelimiter)
    }

    /// A part of a text: plain text, or an encoded localizable string.
    public enum Segment: Sendable, Hashable {
        /// Text shown as it is.
        case text(String)
        /// A string resolved at delivery.
        case localizable(LocalizableString)
    }

    /// Splits a text into plain parts and encoded segments. A delimiter without its partner, or one around text
    /// that is not a valid encoding, stays plain text.
    public static func segments(of text: String) -> [Segment] {
        guard mayContainEncoded(text) else { return text.isEmpty ? [] : [.text(text)] }
        var result: [Segment] = []
        var plain = String.UnicodeScalarView()
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        func flushPlain() {
            if !plain.isEmpty { result.append(.text(String(plain))) }
            plain = String.UnicodeScalarView()
        }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == startDelimiter,
                let end = scalars[scalars.index(after: index)...].firstIndex(of: endDelimiter),
                let value = try? JSONDecoder().decode(
                    LocalizableString.self, from: Data(String(scalars[scalars.index(after: index)..<end]).utf8))
            {
                flushPlain()
                result.append(.localizable(value))
                index = scalars.index(after: end)
            } else {
                plain.append(scalar)
                index = scalars.index(after: index)
            }
        }
        flushPlain()
        return result
    }
}
