import Foundation

/// A recorded sequence of fixes, read from a GPX or CSV file, for ``ReplayLocationSource``.
///
/// - **GPX**: every `<trkpt lat="…" lon="…">` (and `<rtept>`, `<wpt>`) in document order, with its `<time>` (ISO 8601);
///   a point without a time comes one second after the previous one. Other elements are ignored.
/// - **CSV**: one fix per line, `timestamp,latitude,longitude[,accuracy]`; the timestamp is ISO 8601 or a number of
///   seconds (since 1970, or since any origin: only the differences matter for pacing). Blank lines, lines starting
///   with `#`, and a first line that is a header are skipped.
///
/// ```swift
/// let track = try LocationTrack(csv: "t,lat,lon\n0,48.85,2.35\n10,48.86,2.35\n")
/// ```
public struct LocationTrack: Sendable, Hashable {
    /// The fixes, in file order.
    public var fixes: [LocationFix]

    /// Creates a track from fixes.
    public init(fixes: [LocationFix]) {
        self.fixes = fixes
    }

    /// Reads a track file, choosing the format by extension (`.gpx`, else CSV) or, failing that, by content.
    ///
    /// - Throws: ``LocationTrackError`` when the file cannot be read or a line or point cannot be parsed.
    public init(contentsOf url: URL) throws {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw LocationTrackError("cannot read \(url.path): \(error.localizedDescription)")
        }
        let isGPX =
            url.pathExtension.lowercased() == "gpx"
            || text.drop(while: \.isWhitespace).hasPrefix("<")
        self = isGPX ? try LocationTrack(gpx: text) : try LocationTrack(csv: text)
    }

    /// Parses CSV: `timestamp,latitude,longitude[,accuracy]` per line.
    ///
    /// - Throws: ``LocationTrackError`` naming the first line that cannot be read.
    public init(csv text: String) throws {
        var fixes: [LocationFix] = []
        var skippedHeader = false
        for (offset, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
        {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let time = fields.first.flatMap(Self.date(from:))
            let latitude = fields.count > 1 ? Double(fields[1]) : nil
            let longitude = fields.count > 2 ? Double(fields[2]) : nil
            guard let time, let latitude, let longitude, fields.count <= 4 else {
                if fixes.isEmpty, !skippedHeader, time == nil {
                    skippedHeader = true  // the first line, naming the columns
                    continue
                }
                throw LocationTrackError(
                    "line \(offset + 1): expected timestamp,latitude,longitude[,accuracy]: '\(line)'")
            }
            var accuracy = 0.0
            if fields.count == 4, !fields[3].isEmpty {
                guard let value = Double(fields[3]) else {
                    throw LocationTrackError("line \(offset + 1): the accuracy '\(fields[3])' is not a number")
                }
                accuracy = value
            }
            let fix = LocationFix(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, timestamp: time)
            if let problem = fix.coordinateProblem { throw LocationTrackError("line \(offset + 1): \(problem)") }
            fixes.append(fix)
        }
        self.init(fixes: fixes)
    }

    /// Parses GPX 1.0 or 1.1: track, route and way points with their `lat`, `lon` and `<time>`.
    ///
    /// - Throws: ``LocationTrackError`` for a point without a readable `lat` or `lon`, or an unreadable time.
    public init(gpx text: String) throws {
        var fixes: [LocationFix] = []
        var rest = text[...]
        while let open = Self.nextPoint(in: rest) {
            let afterName = rest[open.upperBound...]
            guard let tagEnd = afterName.firstIndex(of: ">") else {
                throw LocationTrackError("unterminated <\(open.name)>")
            }
            let attributes = afterName[..<tagEnd]
            let selfClosing = attributes.hasSuffix("/")
            var body = Substring()
            rest = afterName[afterName.index(after: tagEnd)...]
            if !selfClosing {
                let close = "</\(open.name)>"
                guard let end = rest.range(of: close) else {
                    throw LocationTrackError("<\(open.name)> without \(close)")
                }
                body = rest[..<end.lowerBound]
                rest = rest[end.upperBound...]
            }
            guard let latitude = Self.attribute("lat", in: attributes).flatMap(Double.init),
                let longitude = Self.attribute("lon", in: attributes).flatMap(Double.init)
            else {
                throw LocationTrackError(
                    "point \(fixes.count + 1): <\(open.name)> needs numeric lat and lon attributes")
            }
            let time: Date
            if let text = Self.element("time", in: body) {
                guard let parsed = Self.date(from: text) else {
                    throw LocationTrackError("point \(fixes.count + 1): cannot read the time '\(text)'")
                }
                time = parsed
            } else {
                time = fixes.last.map { $0.timestamp.addingTimeInterval(1) } ?? Date(timeIntervalSince1970: 0)
            }
            let fix = LocationFix(latitude: latitude, longitude: longitude, timestamp: time)
            if let problem = fix.coordinateProblem { throw LocationTrackError("point \(fixes.count + 1): \(problem)") }
            fixes.append(fix)
        }
        self.init(fixes: fixes)
    }

    /// The next `<trkpt`, `<rtept` or `<wpt` opening tag.
    private static func nextPoint(in text: Substring) -> (name: String, upperBound: Substring.Index)? {
        var best: (name: String, range: Range<Substring.Index>)?
        for name in ["trkpt", "rtept", "wpt"] {
            var search = text[...]
            while let range = search.range(of: "<" + name) {
                let next = text[range.upperBound...].first
                if next == nil || next!.isWhitespace || next == ">" || next == "/" {
                    if best == nil || range.lowerBound < best!.range.lowerBound { best = (name, range) }
                    break
                }
                search = text[range.upperBound...]
            }
        }
        return best.map { ($0.name, $0.range.upperBound) }
    }

    /// The value of `name="…"` or `name='…'` in a tag's attributes.
    private static func attribute(_ name: String, in attributes: Substring) -> String? {
        var search = attributes[...]
        while let range = search.range(of: name) {
            let before =
                range.lowerBound == attributes.startIndex ? " " : attributes[attributes.index(before: range.lowerBound)]
            var cursor = range.upperBound
            search = attributes[range.upperBound...]
            guard before.isWhitespace else { continue }
            while cursor < attributes.endIndex, attributes[cursor].isWhitespace {
                cursor = attributes.index(after: cursor)
            }
            guard cursor < attributes.endIndex, attributes[cursor] == "=" else { continue }
            cursor = attributes.index(after: cursor)
            while cursor < attributes.endIndex, attributes[cursor].isWhitespace {
                cursor = attributes.index(after: cursor)
            }
            guard cursor < attributes.endIndex, attributes[cursor] == "\"" || attributes[cursor] == "'" else {
                continue
            }
            let quote = attributes[cursor]
            let start = attributes.index(after: cursor)
            guard let end = attributes[start...].firstIndex(of: quote) else { return nil }
            return String(attributes[start..<end]).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The text of the first `<name>…</name>` in a point's body.
    private static func element(_ name: String, in body: Substring) -> String? {
        guard let open = body.range(of: "<\(name)>"), let close = body[open.upperBound...].range(of: "</\(name)>")
        else {
            return nil
        }
        return body[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An ISO 8601 instant (with or without fractional seconds) or a number of seconds since 1970.
    static func date(from text: String) -> Date? {
        if let seconds = Double(text), seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return try? fractional.parse(text)
    }
}
