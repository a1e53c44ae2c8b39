import Foundation
import NotificationEngine
import NotificationModel

/// The Scheduled page: every pending request of every app, with its trigger in words, its next fire dates and a
/// Remove button, under a timeline of the next 7 days drawn as inline SVG (one row per app, a mark per fire).
///
/// Pure: it renders what it is given. Every piece of an app's text is escaped.
struct ScheduledPage {
    /// One pending request and the instants it fires at.
    struct Item: Sendable {
        var request: PendingRequest
        /// The next fire dates, soonest first (at most a few are listed; the timeline uses all within 7 days).
        var fireDates: [Date]
    }

    var items: [Item]
    var now: Date
    var csrfToken: String
    var format: (Date) -> String
    /// How many fire dates the list shows per request.
    static let listed = 3
    /// The timeline's span.
    static let span: TimeInterval = 7 * 86_400

    /// The fire dates of a pending request from its next one on: repeats follow the trigger, up to `limit` dates
    /// and no later than `until`.
    static func fireDates(of request: PendingRequest, until: Date, limit: Int, calendar: Calendar) -> [Date] {
        guard var next = request.nextFireDate else { return [] }
        var dates = [next]
        guard request.spec.trigger?.repeats == true else { return dates }
        while dates.count < limit, next <= until,
            let following = TriggerPlanner.nextFireDate(
                after: next, now: next, for: request.spec.trigger, calendar: calendar), following > next
        {
            dates.append(following)
            next = following
        }
        return dates
    }

    func render() -> String {
        var html = "<h1>Scheduled</h1>\n"
        guard !items.isEmpty else { return html + "<p class=\"empty\">No pending requests.</p>" }
        html += timeline()
        let apps = Dictionary(grouping: items, by: \.request.appID).sorted { $0.key < $1.key }
        for (app, items) in apps {
            html += "<section class=\"app\" data-app=\"\(app.htmlEscaped)\"><h2>\(app.htmlEscaped)</h2>\n"
            html +=
                "<table class=\"pending\"><thead><tr><th>Request</th><th>Trigger</th><th>Next</th><th></th></tr></thead><tbody>\n"
            let sorted = items.sorted {
                ($0.request.nextFireDate ?? .distantFuture, $0.request.identifier)
                    < ($1.request.nextFireDate ?? .distantFuture, $1.request.identifier)
            }
            for item in sorted {
                let request = item.request
                let content = request.spec.content
                html += "<tr data-id=\"\(request.identifier.htmlEscaped)\"><td><span class=\"request-id\">"
                html += "\(request.identifier.htmlEscaped)</span>"
                if !content.title.isEmpty { html += "<br><span class=\"title\">\(content.title.htmlEscaped)</span>" }
                if !content.body.isEmpty { html += "<br><span class=\"body\">\(content.body.htmlEscaped)</span>" }
                html += "</td><td>\(TriggerWords.describe(request.spec.trigger).htmlEscaped)</td><td>"
                if item.fireDates.isEmpty {
                    html += "<span class=\"muted\">no date (waits for its region)</span>"
                } else {
                    html += item.fireDates.prefix(Self.listed).map {
                        "<time datetime=\"\(WebCenter.machineTime($0))\">\(format($0).htmlEscaped)</time>"
                    }.joined(separator: "<br>")
                }
                html += "</td><td><form method=\"post\" action=\"/scheduled/remove\">"
                html += HTMLPage.hidden("csrf", csrfToken) + HTMLPage.hidden("app", request.appID)
                html += HTMLPage.hidden("id", request.identifier)
                html += "<button type=\"submit\" class=\"destructive remove\">Remove</button></form></td></tr>\n"
            }
            html += "</tbody></table></section>\n"
        }
        return html
    }

    /// The most rows the timeline draws (the soonest requests); the list below has them all.
    static let timelineRows = 24

    /// The next 7 days as an SVG: a column per day, a row per request (the soonest first), a mark per fire (its
    /// title says what and when).
    func timeline() -> String {
        let end = now.addingTimeInterval(Self.span)
        let rows = items.filter { item in item.fireDates.contains { $0 >= now && $0 <= end } }
            .sorted {
                ($0.fireDates[0], $0.request.appID, $0.request.identifier)
                    < ($1.fireDates[0], $1.request.appID, $1.request.identifier)
            }
            .prefix(Self.timelineRows)
        let labelWidth = 220.0, width = 760.0, rowHeight = 22.0, top = 22.0
        let plotWidth = width - labelWidth - 10
        let height = top + rowHeight * Double(max(rows.count, 1)) + 8
        var svg = "<figure class=\"timeline\"><figcaption>Next 7 days</figcaption>"
        svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\""
        svg += " aria-label=\"Fires in the next 7 days\" class=\"timeline\">"
        for day in 0...7 {
            let x = labelWidth + plotWidth * Double(day) / 7
            svg += "<line x1=\"\(x)\" y1=\"\(top - 4)\" x2=\"\(x)\" y2=\"\(height - 4)\" class=\"grid\"/>"
            if day < 7 {
                let label = String(format(now.addingTimeInterval(Double(day) * 86_400)).prefix(10).dropFirst(5))
                svg += "<text x=\"\(x + 3)\" y=\"14\" class=\"axis\">\(label.htmlEscaped)</text>"
            }
        }
        if rows.isEmpty {
            svg +=
                "<text x=\"\(labelWidth + 4)\" y=\"\(top + 14)\" class=\"label\">nothing fires in the next 7 days</text>"
        }
        for (row, item) in rows.enumerated() {
            let y = top + rowHeight * Double(row) + rowHeight / 2
            var label = "\(item.request.appID) · \(item.request.identifier)"
            if label.count > 34 { label = String(label.prefix(33)) + "…" }
            svg += "<text x=\"4\" y=\"\(y + 4)\" class=\"label\">\(label.htmlEscaped)</text>"
            for date in item.fireDates where date >= now && date <= end {
                let x = ((labelWidth + plotWidth * date.timeIntervalSince(now) / Self.span) * 10).rounded() / 10
                svg += "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"4\" class=\"fire\"><title>"
                svg += "\(item.request.identifier.htmlEscaped) · \(format(date).htmlEscaped)</title></circle>"
            }
        }
        return svg + "</svg></figure>\n"
    }
}
