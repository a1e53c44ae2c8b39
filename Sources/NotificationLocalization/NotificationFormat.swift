import Foundation
import NotificationModel

/// printf-style formatting of a localized format with typed arguments, safe against a translation whose
/// conversions do not match the arguments.
///
/// Each conversion takes the next argument, or the numbered one (`%2$@`), converted to what the conversion reads:
/// `%@` and `%s` the argument's text, `%d %i %u %x %X %o %c` an integer (from text when it reads as a number,
/// otherwise 0), `%f %e %g %a` (any case) a double. Length modifiers (`l`, `ll`, `q`, `z`, `h`, ...) are accepted
/// and do not matter. `%%` is a percent sign. A conversion without an argument, `%n`, `%p`, a `*` width and
/// anything unknown are left in the text as written, so a broken translation shows rather than crashes.
/// Numbers are written as `String(format:)` without a locale writes them (`1234.5`), as Apple's
/// `localizedUserNotificationString` does.
public enum NotificationFormat {
    /// The format with its conversions replaced by the arguments.
    public static func format(_ format: String, arguments: [LocalizableString.Argument]) -> String {
        var result = ""
        let scalars = Array(format.unicodeScalars)
        var index = 0
        var nextArgument = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "%" else {
                result.unicodeScalars.append(scalar)
                index += 1
                continue
            }
            guard let conversion = Conversion(scalars, at: index) else {
                result.unicodeScalars.append(scalar)
                index += 1
                continue
            }
            let text = String(String.UnicodeScalarView(scalars[index..<conversion.end]))
            defer { index = conversion.end }
            if conversion.letter == "%" {
                result += "%"
                continue
            }
            let position: Int
            if let explicit = conversion.position {
                position = explicit - 1
            } else {
                position = nextArgument
                nextArgument += 1
            }
            guard conversion.isSupported, arguments.indices.contains(position) else {
                result += text
                continue
            }
            result += conversion.render(arguments[position])
        }
        return result
    }

    /// One `%…` conversion of a format.
    struct Conversion {
        /// The 1-based argument number of `%n$`, when written.
        var position: Int?
        var flags: String
        var width: String
        var precision: String
        var letter: Unicode.Scalar
        /// The index just past the conversion letter.
        var end: Int
        var hasStarWidth: Bool

        /// Parses the conversion starting at `start` (a `%`); `nil` when no conversion letter follows.
        init?(_ scalars: [Unicode.Scalar], at start: Int) {
            var index = start + 1
            func digits() -> String {
                var text = ""
                while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                    text.unicodeScalars.append(scalars[index])
                    index += 1
                }
                return text
            }
            position = nil
            let saved = index
            let number = digits()
            if !number.isEmpty, index < scalars.count, scalars[index] == "$", let value = Int(number), value > 0 {
                position = value
                index += 1
            } else {
                index = saved
            }
            flags = ""
            while index < scalars.count, "-+ #0'".unicodeScalars.contains(scalars[index]) {
                flags.unicodeScalars.append(scalars[index])
                index += 1
            }
            hasStarWidth = false
            if index < scalars.count, scalars[index] == "*" {
                hasStarWidth = true
                index += 1
            }
            width = digits()
            precision = ""
            if index < scalars.count, scalars[index] == "." {
                index += 1
                precision = "." + digits()
            }
            while index < scalars.count, "hlqLjzt".unicodeScalars.contains(scalars[index]) { index += 1 }
            guard index < scalars.count else { return nil }
            letter = scalars[index]
            guard letter.isASCII, letter.properties.isAlphabetic || letter == "@" || letter == "%" else { return nil }
            end = index + 1
        }

        var isSupported: Bool {
            !hasStarWidth && "@sSdiuoxXcCfFeEgGaA".unicodeScalars.contains(letter)
        }

        /// The argument written by this conversion.
        func render(_ argument: LocalizableString.Argument) -> String {
            // The `'` grouping flag is not portable to Foundation's formatter: it is dropped.
            let flags = flags.replacingOccurrences(of: "'", with: "")
            switch letter {
            case "@", "s", "S":
                var text = argument.description
                if precision.count > 1, let limit = Int(precision.dropFirst()), text.count > limit {
                    text = String(text.prefix(limit))
                }
                if let width = Int(width), text.count < width {
                    let padding = String(repeating: " ", count: width - text.count)
                    text = flags.contains("-") ? text + padding : padding + text
                }
                return text
            case "d", "i":
                return String(format: "%\(flags)\(width)\(precision)lld", integer(argument))
            case "u", "o", "x", "X":
                return String(format: "%\(flags)\(width)\(precision)ll\(letter)", UInt64(bitPattern: integer(argument)))
            case "c", "C":
                let character: String
                switch argument {
                case let .string(text): character = text.first.map(String.init) ?? ""
                default: character = Unicode.Scalar(UInt32(truncatingIfNeeded: integer(argument))).map(String.init) ?? ""
                }
                return character
            default:
                return String(format: "%\(flags)\(width)\(precision)\(letter)", double(argument))
            }
        }

        private func integer(_ argument: LocalizableString.Argument) -> Int64 {
            switch argument {
            case let .int(value): return value
            case let .uint(value): return Int64(bitPattern: value)
            case let .double(value):
                guard value.isFinite else { return 0 }
                return Int64(exactly: value.rounded(.towardZero)) ?? (value < 0 ? .min : .max)
            case let .string(text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if let value = Int64(trimmed) { return value }
                if let value = Double(trimmed), value.isFinite, abs(value) < 9.2e18 { return Int64(value) }
                return 0
            }
        }

        private func double(_ argument: LocalizableString.Argument) -> Double {
            switch argument {
            case let .int(value): return Double(value)
            case let .uint(value): return Double(value)
            case let .double(value): return value
            case let .string(text): return Double(text.trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
    }
}
