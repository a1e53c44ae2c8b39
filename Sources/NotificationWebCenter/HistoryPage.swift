import Foundation
import NotificationModel

/// The History page: deliveries with their due and delivery instants, lateness, presenter and outcome, newest first,
/// filtered by app and outcome, under a histogram of lateness drawn as inline SVG.
///
/// Pure: it renders what it is given. Every piece of an app's text is escaped.
struct HistoryPage {
    var entries: [HistoryEntry]
    var apps: [String]
    var selectedApp: String?
    var selectedOutcome: HistoryEntry.Outcome?
    var format: (Date) -> String

    /// The histogram's buckets: an upper bound in seconds (exclusive) and its label; the last takes the rest.
    static let buckets: [(limit: TimeInterval, label: String)] = [
        (0.001, "< 1 ms"), (0.01, "< 10 ms"), (0.1, "< 100 ms"), (1, "< 1 s"), (10, "< 10 s"), (60, "< 1 min"),
        (3_600, "< 1 h"), (.infinity, "≥ 1 h"),
    ]

    /// How many entries fall into each bucket (entries without a due instant are left out; early ones count as 0).
    static func histogram(_ entries: [HistoryEntry]) -> [Int] {
        var counts = Array(repeating: 0, count: buckets.count)
        for lateness in entries.compactMap(\.lateness) {
            let index = buckets.firstIndex { max(0, lateness) < $0.limit } ?? buckets.count - 1
            counts[index] += 1
        }
        return counts
    }

    /// A lateness for people: "12.3 ms", "4.2 s", "3 min 5 s".
    static func lateness(_ seconds: TimeInterval) -> String {
        let sign = seconds < 0 ? "−" : ""
        let value = abs(seconds)
        if value < 1 { return sign + String(format: "%.1f ms", value * 1_000) }
        if value < 60 { return sign + String(format: "%.2f s", value) }
        return sign + TriggerWords.duration(value)
    }

    func render() -> String {
        var html = "<h1>History</h1>\n"
        html += "<form method=\"get\" action=\"/history\" class=\"filters\"><label>App <select name=\"app\">"
        html += "<option value=\"\">every app</option>"
        for app in apps {
            let selected = app == selectedApp ? " selected" : ""
            html += "<option value=\"\(app.htmlEscaped)\"\(selected)>\(app.htmlEscaped)</option>"
        }
        html += "</select></label><label>Outcome <select name=\"outcome\"><option value=\"\">every outcome</option>"
        for outcome in HistoryEntry.Outcome.allCases {
            let selected = outcome == selectedOutcome ? " selected" : ""
            html += "<option value=\"\(outcome.rawValue)\"\(selected)>\(outcome.rawValue)</option>"
        }
        html += "</select></label><button type=\"submit\">Filter</button></form>\n"
        guard !entries.isEmpty else { return html + "<p class=\"empty\">No history matches.</p>" }
        html += histogramSVG()
        html += "<table class=\"history\"><thead><tr><th>App</th><th>Request</th><th>Due</th><th>Delivered</th>"
        html += "<th>Lateness</th><th>Presenter</th><th>Outcome</th></tr></thead><tbody>\n"
        for entry in entries {
            html += "<tr data-outcome=\"\(entry.outcome.rawValue)\"><td>\(entry.appID.htmlEscaped)</td><td>"
            html += "<span class=\"request-id\">\(entry.requestIdentifier.htmlEscaped)</span>"
            if !entry.title.isEmpty { html += "<br>\(entry.title.htmlEscaped)" }
            html += "</td><td>" + (entry.dueDate.map { time($0) } ?? "<span class=\"muted\">—</span>")
            html += "</td><td>" + time(entry.actedAt) + "</td><td>"
            html += entry.lateness.map { Self.lateness($0).htmlEscaped } ?? "<span class=\"muted\">—</span>"
            html += "</td><td>\(entry.presenter.htmlEscaped)</td><td>\(entry.outcome.rawValue)"
            if let detail = entry.detail, !detail.isEmpty {
                html += "<br><span class=\"muted\">\(detail.htmlEscaped)</span>"
            }
            html += "</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    private func time(_ date: Date) -> String {
        "<time datetime=\"\(WebCenter.machineTime(date))\">\(format(date).htmlEscaped)</time>"
    }

    /// Lateness as bars, one per bucket, with its count above it.
    func histogramSVG() -> String {
        let counts = Self.histogram(entries)
        let largest = max(1, counts.max() ?? 1)
        let width = 760.0, height = 170.0, bottom = 140.0, barArea = 110.0
        let slot = width / Double(counts.count)
        var svg = "<figure class=\"histogram\"><figcaption>Lateness (due to delivered)</figcaption>"
        svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\""
        svg += " aria-label=\"Lateness histogram\" class=\"histogram\">"
        svg += "<line x1=\"0\" y1=\"\(bottom)\" x2=\"\(width)\" y2=\"\(bottom)\" class=\"grid\"/>"
        for (index, count) in counts.enumerated() {
            let barHeight = (barArea * Double(count) / Double(largest) * 10).rounded() / 10
            let x = slot * Double(index) + slot * 0.15
            svg += "<rect x=\"\(x)\" y=\"\(bottom - barHeight)\" width=\"\(slot * 0.7)\" height=\"\(barHeight)\""
            svg += " class=\"bar\"><title>\(Self.buckets[index].label): \(count)</title></rect>"
            svg += "<text x=\"\(x)\" y=\"\(bottom - barHeight - 4)\" class=\"axis\">\(count)</text>"
            svg +=
                "<text x=\"\(x)\" y=\"\(bottom + 16)\" class=\"axis\">\(Self.buckets[index].label.htmlEscaped)</text>"
        }
        return svg + "</svg></figure>\n"
    }
}
