import Foundation

/// Nearest-rank percentiles of a sample.
struct Percentiles: Sendable {
    let sorted: [Double]

    init(_ values: [Double]) { sorted = values.sorted() }

    var count: Int { sorted.count }

    /// The nearest-rank percentile `p` (0...100); `nan` for an empty sample.
    func value(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    var p50: Double { value(50) }
    var p99: Double { value(99) }
    var max: Double { sorted.last ?? .nan }
    var min: Double { sorted.first ?? .nan }
}

func median(_ values: [Double]) -> Double { Percentiles(values).p50 }

/// Number formatting for the report.
enum Format {
    /// Seconds as `12.3 µs`, `4.56 ms` or `7.89 s`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "n/a" }
        let magnitude = abs(seconds)
        if magnitude < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
        if magnitude < 1 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.2f s", seconds)
    }

    static func count(_ value: Int) -> String {
        let digits = String(abs(value))
        var grouped = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// A count with a `k`/`M` suffix: `100k`, `1M`.
    static func size(_ value: Int) -> String {
        if value >= 1_000_000, value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000, value % 1_000 == 0 { return "\(value / 1_000)k" }
        return count(value)
    }

    /// Rows per second with the time per row: `1,523 /s (657 µs each)`.
    static func rate(rows: Int, seconds: Double) -> String {
        guard rows > 0, seconds > 0 else { return "n/a" }
        return "\(count(Int((Double(rows) / seconds).rounded()))) /s (\(duration(seconds / Double(rows))) each)"
    }

    /// `measured / baseline` as `×12.3`.
    static func ratio(_ measured: Double, _ baseline: Double) -> String {
        guard measured.isFinite, baseline.isFinite, baseline > 0 else { return "n/a" }
        let value = measured / baseline
        return value >= 100 ? String(format: "×%.0f", value) : value >= 10 ? String(format: "×%.1f", value) : String(format: "×%.2f", value)
    }
}

/// A plain-text table with aligned columns, also printable as Markdown.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { column, cell in cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        var lines = [line(headers), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}

/// Progress goes to standard error; figures to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("· \(message)\n".utf8))
}

func say(_ message: String = "") {
    FileHandle.standardOutput.write(Data("\(message)\n".utf8))
}
