import Foundation
import NotificationStorePostgres
import NotificationWebCenter

/// A push's figures by hour as an inline SVG bar chart, drawn on the server: per hour (UTC) one group of four bars,
/// accepted, failed, received and opened, with a value axis, hour labels and a legend. No script and no library; the
/// colours come from the pages' stylesheet (`push.css`), as the Content-Security-Policy allows no inline style.
///
/// Every hour from the first to the last with figures has its group, hours without figures included (bars of height
/// 0), so the axis is linear in time; at most ``maximumHours`` groups (the latest ones) are drawn. Each group carries
/// its figures in `data-` attributes and each bar its value (`data-value`) and a `<title>` (the tooltip), so tests
/// and people read the same numbers as the bars show.
///
/// ```swift
/// let svg = PushChart(hours: statistics.byHour).svg
/// ```
struct PushChart: Sendable {
    /// The series, in the order of the bars in a group and of the legend.
    enum Series: String, CaseIterable, Sendable {
        case accepted, failed, received, opened

        /// The figure of this series in one hour.
        func value(_ hour: PushStatistics.Hour) -> Int {
            switch self {
            case .accepted: hour.accepted
            case .failed: hour.failed
            case .received: hour.received
            case .opened: hour.opened
            }
        }
    }

    /// The most hour groups drawn (a week).
    static let maximumHours = 168

    /// The hours drawn, oldest first, gaps filled with zeros.
    let hours: [PushStatistics.Hour]
    /// Whether older hours with figures were left out (beyond ``maximumHours``).
    let truncated: Bool

    /// The chart of a push's `byHour`.
    init(hours given: [PushStatistics.Hour]) {
        let sorted = given.sorted { $0.start < $1.start }
        guard let first = sorted.first, let last = sorted.last else {
            hours = []
            truncated = false
            return
        }
        let byStart = Dictionary(sorted.map { ($0.start, $0) }, uniquingKeysWith: { $1 })
        let span = Int((last.start.timeIntervalSince(first.start) / 3600).rounded()) + 1
        let count = min(span, Self.maximumHours)
        let start = last.start.addingTimeInterval(-3600 * Double(count - 1))
        hours = (0..<count).map { index in
            let instant = start.addingTimeInterval(3600 * Double(index))
            return byStart[instant] ?? PushStatistics.Hour(start: instant)
        }
        truncated = span > count
    }

    // Geometry, in SVG user units.
    static let height = 260.0
    static let top = 34.0
    static let bottom = 40.0
    static let left = 44.0
    static let right = 12.0
    /// The narrowest plot: a few hours get wider bars rather than a small chart.
    static let minimumPlotWidth = 660.0
    /// The narrowest group of four bars.
    static let minimumGroupWidth = 50.0
    /// The widest bar.
    static let maximumBarWidth = 24.0

    /// The largest value on the axis: the largest figure rounded up to a "nice" number (1, 2 or 5 times a power of
    /// ten), at least 1.
    var axisMaximum: Int {
        let largest = hours.flatMap { hour in Series.allCases.map { $0.value(hour) } }.max() ?? 0
        var step = 1
        while true {
            for factor in [1, 2, 5] where step * factor >= largest { return max(1, step * factor) }
            step *= 10
        }
    }

    /// The height of a bar of `value`.
    func barHeight(_ value: Int) -> Double {
        let plot = Self.height - Self.top - Self.bottom
        return (plot * Double(value) / Double(axisMaximum) * 10).rounded() / 10
    }

    /// The whole `<svg>` element (HTML-escaped where it holds text), or a short note when there is nothing by hour.
    var svg: String {
        guard !hours.isEmpty else {
            return
                "<p class=\"empty\" id=\"chart-empty\">No answers or receipts yet: the chart starts with the first.</p>"
        }
        let plotWidth = max(Self.minimumPlotWidth, Self.minimumGroupWidth * Double(hours.count))
        let groupWidth = plotWidth / Double(hours.count)
        let barWidth = min(Self.maximumBarWidth, (groupWidth - 10) / Double(Series.allCases.count))
        let width = Self.left + Self.right + plotWidth
        let baseline = Self.height - Self.bottom
        let plot = baseline - Self.top
        var svg =
            "<svg class=\"chart\" id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\""
            + " viewBox=\"0 0 \(Self.number(width)) \(Self.number(Self.height))\""
            + " width=\"\(Self.number(width))\" height=\"\(Self.number(Self.height))\""
            + " data-axis-maximum=\"\(axisMaximum)\" data-plot-height=\"\(Self.number(plot))\""
            + " aria-label=\"Accepted, failed, received and opened by hour (UTC)\">"
        // The value axis: four steps with grid lines.
        for step in 0...4 {
            let value = Double(axisMaximum) * Double(step) / 4
            let y = baseline - plot * Double(step) / 4
            svg += "<line class=\"grid\" x1=\"\(Self.number(Self.left))\" x2=\"\(Self.number(width - Self.right))\""
            svg += " y1=\"\(Self.number(y))\" y2=\"\(Self.number(y))\"/>"
            let label = value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
            svg += "<text class=\"axis\" x=\"\(Self.number(Self.left - 6))\" y=\"\(Self.number(y + 4))\""
            svg += " text-anchor=\"end\">\(label)</text>"
        }
        svg += "<line class=\"axis-line\" x1=\"\(Self.number(Self.left))\" x2=\"\(Self.number(Self.left))\""
        svg += " y1=\"\(Self.number(Self.top))\" y2=\"\(Self.number(baseline))\"/>"
        // The legend, along the top.
        for (index, series) in Series.allCases.enumerated() {
            let x = Self.left + Double(index) * 86
            svg += "<rect class=\"\(series.rawValue)\" x=\"\(Self.number(x))\" y=\"8\" width=\"10\" height=\"10\"/>"
            svg += "<text class=\"legend\" x=\"\(Self.number(x + 14))\" y=\"17\">\(series.rawValue)</text>"
        }
        let labelEvery = max(1, hours.count / 12)
        var previousDay = ""
        for (index, hour) in hours.enumerated() {
            let x0 =
                Self.left + (groupWidth - barWidth * Double(Series.allCases.count)) / 2 + groupWidth * Double(index)
            let (day, time) = Self.dayAndTime(hour.start)
            svg += "<g class=\"hour\" data-hour=\"\(Self.iso(hour.start))\""
            for series in Series.allCases { svg += " data-\(series.rawValue)=\"\(series.value(hour))\"" }
            svg += ">"
            for (position, series) in Series.allCases.enumerated() {
                let value = series.value(hour)
                let height = barHeight(value)
                let x = x0 + barWidth * Double(position)
                svg +=
                    "<rect class=\"bar \(series.rawValue)\" data-series=\"\(series.rawValue)\" data-value=\"\(value)\""
                svg += " x=\"\(Self.number(x))\" y=\"\(Self.number(baseline - height))\""
                svg += " width=\"\(Self.number(barWidth - 1))\" height=\"\(Self.number(height))\">"
                svg += "<title>\(day) \(time) UTC: \(value) \(series.rawValue)</title></rect>"
            }
            if index % labelEvery == 0 {
                let center = x0 + barWidth * 2
                svg += "<text class=\"axis\" x=\"\(Self.number(center))\" y=\"\(Self.number(baseline + 14))\""
                svg += " text-anchor=\"middle\">\(time)</text>"
                if day != previousDay {
                    svg += "<text class=\"axis day\" x=\"\(Self.number(center))\" y=\"\(Self.number(baseline + 28))\""
                    svg += " text-anchor=\"middle\">\(day)</text>"
                    previousDay = day
                }
            }
            svg += "</g>"
        }
        svg += "<line class=\"axis-line\" x1=\"\(Self.number(Self.left))\" x2=\"\(Self.number(width - Self.right))\""
        svg += " y1=\"\(Self.number(baseline))\" y2=\"\(Self.number(baseline))\"/></svg>"
        if truncated {
            svg += "<p class=\"note\">The chart shows the latest \(Self.maximumHours) hours;"
            svg += " the JSON API (<code>GET /v1/pushes/{messageId}</code>) has every hour.</p>"
        }
        return svg
    }

    /// A coordinate with at most one decimal, without a trailing `.0`.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// `2026-11-26T12:00:00Z`.
    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// `26 Nov` and `12:00`, in UTC.
    static func dayAndTime(_ date: Date) -> (day: String, time: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.day, .month, .hour], from: date)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = "\(parts.day ?? 1) \(months[((parts.month ?? 1) - 1) % 12])"
        return (day, String(format: "%02d:00", parts.hour ?? 0))
    }
}
