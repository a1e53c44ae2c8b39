import Foundation
import NotificationModel
import Testing

/// `parseDuration(_:)`, which `unotify add --in`, `--missed within:` and every `in` of an import line go through.
@Suite("Duration parsing")
struct DurationParsingTests {
    @Test("a plain decimal number with an optional unit s, m, h or d, in seconds")
    func accepted() {
        let cases: [(String, TimeInterval)] = [
            ("90", 90), ("90s", 90), ("5m", 300), ("2h", 7_200), ("1d", 86_400), ("1.5s", 1.5), ("0", 0), (".5m", 30),
            ("36500d", 36_500 * 86_400),
        ]
        for (text, seconds) in cases { #expect(parseDuration(text) == seconds, "\(text)") }
    }

    @Test("anything else is nil: signs, exponents, hexadecimal, nan, inf, two points, other units, non-ASCII digits, beyond 100 years")
    func refused() {
        for text in [
            "", "s", "-5s", "+5", "1e3", "0x10", "nan", "inf", "1.2.3s", "5w", "5 s", " 5", "٣s", "5s\u{301}", "5é",
            "36526d", "1e309",
        ] {
            #expect(parseDuration(text) == nil, "\(text)")
        }
    }
}
