import Foundation
import NotificationModel

/// The Search page (`/search?q=…`): the delivered notifications of every app whose title, subtitle, body or
/// identifier holds every word, and the history entries whose title or request identifier does (the history keeps
/// no subtitle or body), each with the words marked.
///
/// Pure: it renders what it is given. Every piece of an app's text is escaped.
struct SearchPage {
    var query: SearchQuery
    /// The matching delivered notifications, newest first.
    var delivered: [DeliveredNotification]
    /// The matching history entries, newest first.
    var history: [HistoryEntry]
    /// How many history entries were searched (the newest ones, at most the center's history limit).
    var historySearched: Int
    var format: (Date) -> String

    /// The fields of a delivered notification a search looks in.
    static func fields(of notification: DeliveredNotification) -> [String] {
        let content = notification.request.content
        return [content.title, content.subtitle, content.body, notification.identifier]
    }

    /// The fields of a history entry a search looks in.
    static func fields(of entry: HistoryEntry) -> [String] {
        [entry.title, entry.requestIdentifier]
    }

    func render() -> String {
        var html = "<h1>Search</h1>\n"
        html += "<form method=\"get\" action=\"/search\" class=\"filters\" role=\"search\"><label>Words "
        html += "<input type=\"search\" name=\"q\" maxlength=\"\(SearchQuery.maximumLength)\""
        html += " value=\"\(query.text.htmlEscaped)\"></label><button type=\"submit\">Search</button></form>\n"
        guard !query.words.isEmpty else {
            return html
                + "<p class=\"empty\">Type words to find in the titles, subtitles, bodies and identifiers of "
                + "delivered notifications and in the history of every app.</p>"
        }
        html += "<h2>Delivered <span class=\"muted\">(\(delivered.count))</span></h2>\n"
        if delivered.isEmpty {
            html += "<p class=\"empty\">No delivered notification matches.</p>\n"
        }
        for notification in delivered {
            let content = notification.request.content
            html += "<article class=\"notification result\" data-app=\"\(notification.appID.htmlEscaped)\""
            html += " data-id=\"\(notification.identifier.htmlEscaped)\">"
            html += "<div class=\"meta\"><time datetime=\"\(WebCenter.machineTime(notification.date))\">"
            html += "\(format(notification.date).htmlEscaped)</time></div>"
            html += "<p class=\"app-id\">\(notification.appID.htmlEscaped) · "
            html += "<span class=\"request-id\">\(query.highlighted(notification.identifier))</span></p>"
            if !content.title.isEmpty { html += "<p class=\"title\">\(query.highlighted(content.title))</p>" }
            if !content.subtitle.isEmpty { html += "<p class=\"subtitle\">\(query.highlighted(content.subtitle))</p>" }
            if !content.body.isEmpty { html += "<p class=\"body\">\(query.highlighted(content.body))</p>" }
            html += "</article>\n"
        }
        html += "<h2>History <span class=\"muted\">(\(history.count) of the newest \(historySearched))</span></h2>\n"
        guard !history.isEmpty else { return html + "<p class=\"empty\">No history entry matches.</p>" }
        html += "<table class=\"history\"><thead><tr><th>App</th><th>Request</th><th>Acted</th><th>Outcome</th>"
        html += "</tr></thead><tbody>\n"
        for entry in history {
            html +=
                "<tr class=\"result\" data-outcome=\"\(entry.outcome.rawValue)\"><td>\(entry.appID.htmlEscaped)</td>"
            html += "<td><span class=\"request-id\">\(query.highlighted(entry.requestIdentifier))</span>"
            if !entry.title.isEmpty { html += "<br>\(query.highlighted(entry.title))" }
            html += "</td><td><time datetime=\"\(WebCenter.machineTime(entry.actedAt))\">"
            html += "\(format(entry.actedAt).htmlEscaped)</time></td><td>\(entry.outcome.rawValue)</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }
}
