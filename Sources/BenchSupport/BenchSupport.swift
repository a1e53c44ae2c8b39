import Foundation

// Statistics and formatting shared by the two bench executables.

/// Nearest-rank percentiles of a sample.
public struct Percentiles: Sendable {
    public let sorted: [Double]

    public init(_ values: [Double]) { sorted = values.sorted() }

    public var count: Int { sorted.count }

    public func value(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    public var p50: Double { value(50) }
    public var p99: Double { value(99) }
    public var max: Double { sorted.last ?? .nan }
    public var min: Double { sorted.first ?? .nan }
    public var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }
}

public enum Format {
    /// Seconds as `12.3 µs`, `4.56 ms` or `7.89 s`.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "n/a" }
        let magnitude = abs(seconds)
        if magnitude < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
        if magnitude < 1 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.2f s", seconds)
    }

    public static func count(_ value: Int) -> String {
        let digits = String(abs(value))
        var grouped = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    public static func number(_ value: Double, decimals: Int = 0) -> String {
        guard value.isFinite else { return "n/a" }
        if decimals == 0 { return count(Int(value.rounded())) }
        return String(format: "%.\(decimals)f", value)
    }

    /// A count with a `k`/`M` suffix: `100k`, `1M`.
    public static func size(_ value: Int) -> String {
        if value >= 1_000_000, value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000, value % 1_000 == 0 { return "\(value / 1_000)k" }
        return count(value)
    }

    /// Rows per second with the time per row: `1,523 /s (657 µs each)`.
    public static func rate(rows: Int, seconds: Double) -> String {
        guard rows > 0, seconds > 0 else { return "n/a" }
        return "\(count(Int((Double(rows) / seconds).rounded()))) /s (\(duration(seconds / Double(rows))) each)"
    }

    public static func mebibytes(kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

    public static func mebibytes(bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    /// `measured / baseline` as `×12.3`.
    public static func ratio(_ measured: Double, _ baseline: Double) -> String {
        guard measured.isFinite, baseline.isFinite, baseline > 0 else { return "n/a (baseline 0)" }
        let value = measured / baseline
        if value < 0.01 { return "×" + String(format: "%.2g", value) + " (1/\(count(Int((1 / value).rounded()))))" }
        return value >= 100
            ? String(format: "×%.0f", value)
            : value >= 10 ? String(format: "×%.1f", value) : String(format: "×%.2f", value)
    }
}

/// The figures table: one row per figure, Markdown-shaped so it can go into `docs/benchmarks.md` as is.
public struct Table {
    public var headers: [String]
    public var rows: [[String]] = []

    public init(_ headers: [String]) { self.headers = headers }

    public mutating func add(_ row: [String]) { rows.append(row) }

    public func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            "| "
                + cells.enumerated().map { column, cell in
                    cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }
                .joined(separator: " | ") + " |"
        }
        var lines = [
            line(headers), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|",
        ]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}


/// The median of a sample.
public func median(_ values: [Double]) -> Double { Percentiles(values).p50 }
