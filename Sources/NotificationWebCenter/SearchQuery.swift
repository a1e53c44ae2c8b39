import Foundation

/// What a person typed into the center's search box (`GET /search?q=…`): words that must each appear, ignoring case
/// and diacritics ("cafe" finds "Café"), in one of the fields searched.
///
/// ```swift
/// let query = try SearchQuery(parsing: "lunch  TOMORROW")
/// query.matches(["Lunch tomorrow?", "Body"])   // true
/// ```
struct SearchQuery: Sendable, Hashable {
    /// The longest query taken, in characters; a longer one is refused with a clear message.
    static let maximumLength = 200

    /// The words, in the order typed; empty when nothing but spaces was typed.
    var words: [String]
    /// The query as typed, trimmed.
    var text: String

    private static let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]

    /// Splits the query into words.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/badRequest``) for a query over ``maximumLength``.
    init(parsing text: String) throws(WebCenterError) {
        guard text.count <= Self.maximumLength else {
            throw WebCenterError(
                .badRequest, "a search is at most \(Self.maximumLength) characters (this one has \(text.count))")
        }
        self.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        words = self.text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// Whether every word appears in at least one of `fields` (not necessarily the same one).
    func matches(_ fields: [String]) -> Bool {
        !words.isEmpty
            && words.allSatisfy { word in fields.contains { $0.range(of: word, options: Self.options) != nil } }
    }

    /// `text` escaped for HTML, with each occurrence of a word wrapped in `<mark>`.
    func highlighted(_ text: String) -> String {
        var ranges: [Range<String.Index>] = []
        for word in words {
            var start = text.startIndex
            while start < text.endIndex,
                let found = text.range(of: word, options: Self.options, range: start..<text.endIndex)
            {
                ranges.append(found)
                start = found.upperBound > found.lowerBound ? found.upperBound : text.index(after: found.lowerBound)
            }
        }
        // Overlapping occurrences (of "ab" and "bc" in "abc") become one mark.
        var merged: [Range<String.Index>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var html = ""
        var cursor = text.startIndex
        for range in merged {
            html += String(text[cursor..<range.lowerBound]).htmlEscaped
            html += "<mark>" + String(text[range]).htmlEscaped + "</mark>"
            cursor = range.upperBound
        }
        return html + String(text[cursor...]).htmlEscaped
    }
}
