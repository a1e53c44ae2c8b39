import Foundation
import NotificationStorePostgres
import NotificationWebCenter

/// The HTML of server mode's push statistics pages (`/center`), in the web center's frame (``HTMLPage``, its
/// stylesheet) with a navigation of their own: the pushes, one push, the topics. Every text that comes from a push
/// (title, tags, action and failure names, message identifiers) is escaped here.
///
/// Each page's figures sit in one element with `data-refresh`: the path of the same figures alone, which `push.js`
/// fetches every few seconds and puts in their place (``PushCenterAssets``).
///
/// ```swift
/// let html = PushCenterPage.pushes([(push, statistics)], before: nil, next: nil)
/// ```
enum PushCenterPage {
    /// The navigation's sections.
    enum Section: String, CaseIterable {
        case pushes, topics

        var path: String { self == .pushes ? "/center" : "/center/topics" }
        var label: String { self == .pushes ? "Pushes" : "Topics" }
    }

    /// How often the pages fetch their figures again, in milliseconds.
    static let refreshInterval = 3000

    /// A whole page.
    static func document(title: String, current: Section?, body: String, showsNavigation: Bool = true) -> String {
        var header = ""
        if showsNavigation {
            header += "<nav>"
            for section in Section.allCases {
                let mark = section == current ? " aria-current=\"page\"" : ""
                header += "<a href=\"\(section.path)\"\(mark)>\(section.label)</a>"
            }
            header += "</nav><span id=\"live\" class=\"live\"></span>"
        }
        return HTMLPage.document(
            title: title, brand: "unotify push center",
            stylesheets: ["/center/static/center.css", "/center/static/push.css"],
            scripts: showsNavigation ? ["/center/static/push.js"] : [], header: header, body: body)
    }

    /// The element whose content `push.js` replaces with what `source` answers.
    static func live(_ source: String, _ content: String) -> String {
        "<div id=\"figures\" data-refresh=\"\(source.htmlEscaped)\" data-interval=\"\(refreshInterval)\">"
            + content + "</div>"
    }

    // MARK: - The list of pushes

    /// The list page: newest first, a page at a time.
    ///
    /// - Parameters:
    ///   - rows: The page's pushes with their statistics.
    ///   - before: The cursor this page starts after (`nil` for the newest).
    ///   - next: The cursor of the next (older) page, or `nil` when this is the last.
    static func pushes(_ rows: [(PushMessage, PushStatistics)], before: String?, next: String?) -> String {
        let source = "/center/figures" + (before.map { "?before=" + $0.urlComponentEncoded } ?? "")
        var body = "<h1>Pushes</h1>"
        body += "<p class=\"hint\">Newest first. The figures are current within seconds: the page reads them again"
        body += " every \(refreshInterval / 1000) s.</p>"
        body += live(source, pushTable(rows, before: before))
        body += "<nav class=\"pages\">"
        if before != nil { body += "<a href=\"/center\">Newest</a>" }
        if let next { body += "<a href=\"/center?before=\(next.urlComponentEncoded.htmlEscaped)\">Older</a>" }
        body += "</nav>"
        return document(title: "Pushes", current: .pushes, body: body)
    }

    /// The table of pushes (the list page's live part); `before` is the page's cursor.
    static func pushTable(_ rows: [(PushMessage, PushStatistics)], before: String?) -> String {
        guard !rows.isEmpty else {
            return "<p class=\"empty\">" + (before == nil ? "No pushes yet." : "No older pushes.") + "</p>"
        }
        var html = "<table class=\"pushes\"><thead><tr><th>Push</th><th>Created</th><th>Target</th><th>State</th>"
        for name in figureNames { html += "<th class=\"num\">\(name)</th>" }
        html += "<th>Delivery</th></tr></thead><tbody>"
        for (push, statistics) in rows {
            let id = push.id.htmlEscaped
            html += "<tr data-message-id=\"\(id)\">"
            html += "<td><a href=\"/center/pushes/\(push.id.urlComponentEncoded.htmlEscaped)\">"
            html += "<span class=\"push-title\">\(headline(push).htmlEscaped)</span></a>"
            html += "<br><code class=\"message-id\">\(id)</code></td>"
            html += "<td>\(time(push.createdAt))</td><td>\(words(push.target).htmlEscaped)</td>"
            html += "<td><span class=\"state \(push.state.rawValue)\">\(push.state.rawValue)</span></td>"
            for (name, value) in figures(statistics) {
                html += "<td class=\"num\" data-figure=\"\(name)\">\(value)</td>"
            }
            html += "<td>\(smallBar(statistics))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    /// The figures of a row, in the table's order.
    static let figureNames = ["targeted", "sent", "accepted", "failed", "received", "opened"]

    static func figures(_ statistics: PushStatistics) -> [(String, Int)] {
        [
            ("targeted", statistics.targeted), ("sent", statistics.sent), ("accepted", statistics.accepted),
            ("failed", statistics.failedCount), ("received", statistics.received), ("opened", statistics.opened),
        ]
    }

    /// A small stacked bar of the targeted devices: accepted, failed, pending (and cancelled), as an inline SVG.
    static func smallBar(_ statistics: PushStatistics) -> String {
        let width = 120.0
        let total = max(1, statistics.targeted)
        var svg = "<svg class=\"small-bar\" xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"10\""
        svg += " viewBox=\"0 0 120 10\" role=\"img\""
        svg += " aria-label=\"\(statistics.accepted) accepted, \(statistics.failedCount) failed,"
        svg += " \(statistics.pending) pending of \(statistics.targeted)\">"
        svg += "<rect class=\"track\" x=\"0\" y=\"0\" width=\"120\" height=\"10\"/>"
        var x = 0.0
        for (name, value) in [
            ("accepted", statistics.accepted), ("failed", statistics.failedCount), ("pending", statistics.pending),
        ] where value > 0 {
            let part = width * Double(value) / Double(total)
            svg += "<rect class=\"\(name)\" data-value=\"\(value)\" x=\"\(PushChart.number(x))\" y=\"0\""
            svg += " width=\"\(PushChart.number(part))\" height=\"10\"><title>\(value) \(name)</title></rect>"
            x += part
        }
        return svg + "</svg>"
    }

    // MARK: - One push

    /// One push's page.
    static func push(_ push: PushMessage, _ statistics: PushStatistics) -> String {
        let path = "/center/pushes/\(push.id.urlComponentEncoded)"
        var body = "<p class=\"back\"><a href=\"/center\">← Pushes</a></p>"
        body += "<h1>\(headline(push).htmlEscaped)</h1>"
        body += "<dl class=\"push-details\">"
        body += "<dt>Message id</dt><dd><code class=\"message-id\">\(push.id.htmlEscaped)</code></dd>"
        if !push.content.subtitle.isEmpty { body += "<dt>Subtitle</dt><dd>\(push.content.subtitle.htmlEscaped)</dd>" }
        if !push.content.body.isEmpty { body += "<dt>Body</dt><dd>\(push.content.body.htmlEscaped)</dd>" }
        body += "<dt>Target</dt><dd>\(words(push.target).htmlEscaped)</dd>"
        body += "<dt>Created</dt><dd>\(time(push.createdAt))</dd>"
        body += "<dt>Sent</dt><dd>\(words(push.sendTime, createdAt: push.createdAt).htmlEscaped)</dd>"
        if let expiry = push.expiresAt { body += "<dt>Expires</dt><dd>\(time(expiry))</dd>" }
        if !push.content.categoryIdentifier.isEmpty {
            body += "<dt>Category</dt><dd><code>\(push.content.categoryIdentifier.htmlEscaped)</code></dd>"
        }
        if let collapse = push.collapseID {
            body += "<dt>Collapse id</dt><dd><code>\(collapse.htmlEscaped)</code></dd>"
        }
        body += "</dl>"
        body += live(path + "/figures", pushFigures(push, statistics))
        return document(title: headline(push), current: nil, body: body)
    }

    /// One push's live part: state, counts, failures by reason, actions and the chart by hour.
    static func pushFigures(_ push: PushMessage, _ statistics: PushStatistics) -> String {
        var html = "<p>State: <span class=\"state \(push.state.rawValue)\" id=\"state\">\(push.state.rawValue)</span>"
        html += " \(smallBar(statistics))</p>"
        html += "<dl class=\"counts\">"
        let counts: [(String, Int)] = [
            ("targeted", statistics.targeted), ("sent", statistics.sent), ("accepted", statistics.accepted),
            ("failed", statistics.failedCount), ("pending", statistics.pending), ("cancelled", statistics.cancelled),
            ("received", statistics.received), ("opened", statistics.opened), ("dismissed", statistics.dismissed),
        ]
        for (name, value) in counts {
            html += "<div class=\"count \(name)\"><dt>\(name)</dt><dd data-figure=\"\(name)\">\(value)</dd></div>"
        }
        html += "</dl><div class=\"tables\">"
        html += table(
            "Failures by reason", id: "failures", statistics.failed, empty: "No failures.", key: "reason")
        html += table("Actions", id: "actions", statistics.actions, empty: "No actions chosen.", key: "action")
        html += "</div><h2>By hour (UTC)</h2>" + PushChart(hours: statistics.byHour).svg
        return html
    }

    /// A small table of names and counts, largest first.
    static func table(_ title: String, id: String, _ values: [String: Int], empty: String, key: String) -> String {
        var html = "<section class=\"breakdown\" id=\"\(id)\"><h2>\(title)</h2>"
        guard !values.isEmpty else { return html + "<p class=\"empty\">\(empty)</p></section>" }
        html += "<table><tbody>"
        for (name, count) in values.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            html += "<tr data-\(key)=\"\(name.htmlEscaped)\"><td>\(name.htmlEscaped)</td>"
            html += "<td class=\"num\">\(count)</td></tr>"
        }
        return html + "</tbody></table></section>"
    }

    // MARK: - Topics

    /// The topics page: each topic's sums over every push to its devices.
    static func topics(_ rows: [(String, PushStatistics)]) -> String {
        var body = "<h1>Topics</h1><p class=\"hint\">The sums of every push to each app's devices.</p>"
        body += live("/center/topics/figures", topicTable(rows))
        return document(title: "Topics", current: .topics, body: body)
    }

    /// The table of topics (the topics page's live part).
    static func topicTable(_ rows: [(String, PushStatistics)]) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">No devices yet.</p>" }
        var html = "<table class=\"topics\"><thead><tr><th>Topic</th>"
        for name in ["targeted", "sent", "accepted", "failed", "pending", "received", "opened", "dismissed"] {
            html += "<th class=\"num\">\(name)</th>"
        }
        html += "<th>Failures by reason</th><th>Delivery</th></tr></thead><tbody>"
        for (topic, statistics) in rows {
            html += "<tr data-topic=\"\(topic.htmlEscaped)\"><td><code>\(topic.htmlEscaped)</code></td>"
            for (name, value) in [
                ("targeted", statistics.targeted), ("sent", statistics.sent), ("accepted", statistics.accepted),
                ("failed", statistics.failedCount), ("pending", statistics.pending),
                ("received", statistics.received), ("opened", statistics.opened), ("dismissed", statistics.dismissed),
            ] {
                html += "<td class=\"num\" data-figure=\"\(name)\">\(value)</td>"
            }
            let reasons = statistics.failed.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\($0.key) \($0.value)".htmlEscaped }
            html += "<td>\(reasons.isEmpty ? "–" : reasons.joined(separator: "<br>"))</td>"
            html += "<td>\(smallBar(statistics))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    // MARK: - Words

    /// The push's title, else its subtitle, else its body; a background push has none.
    static func headline(_ push: PushMessage) -> String {
        [push.content.title, push.content.subtitle, push.content.body].first { !$0.isEmpty }
            ?? (push.contentAvailable ? "(background push)" : "(no text)")
    }

    /// The target in words: `every device`, `account alice`, `alias x`, `3 devices: a, b, c`,
    /// `tags news AND NOT (muted OR away)`.
    static func words(_ target: PushTarget) -> String {
        switch target {
        case .all: return "every device"
        case .account(let name): return "account \(name)"
        case .alias(let name): return "alias \(name)"
        case .devices(let ids):
            let shown = ids.prefix(3).joined(separator: ", ")
            let more = ids.count > 3 ? ", …" : ""
            return "\(ids.count) device\(ids.count == 1 ? "" : "s"): \(shown)\(more)"
        case .tag(let expression): return "tags " + words(expression, nested: false)
        }
    }

    /// A tag expression in words, with parentheses where an operand has operands of its own.
    static func words(_ expression: TagExpression, nested: Bool) -> String {
        let text: String
        switch expression {
        case .tag(let tag): return tag
        case .not(let operand): return "NOT " + words(operand, nested: true)
        case .and(let operands): text = operands.map { words($0, nested: true) }.joined(separator: " AND ")
        case .or(let operands): text = operands.map { words($0, nested: true) }.joined(separator: " OR ")
        }
        return nested ? "(" + text + ")" : text
    }

    /// The send time in words.
    static func words(_ sendTime: PushSendTime, createdAt: Date) -> String {
        switch sendTime {
        case .now: return "at once"
        case .at(let date): return "at " + time(date)
        case .localTime(let components):
            let date = String(
                format: "%04d-%02d-%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0)
            let clock = String(format: "%02d:%02d", components.hour ?? 0, components.minute ?? 0)
            return "\(date) \(clock) in each device's zone"
        }
    }

    /// `2026-11-26 12:00:05 UTC`.
    static func time(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d UTC", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0,
            c.minute ?? 0, c.second ?? 0)
    }
}
