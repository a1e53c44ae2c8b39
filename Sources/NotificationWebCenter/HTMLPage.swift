import Hummingbird

/// The frame every page of the center shares: the document, the stylesheet and script (served by the center itself,
/// as the Content-Security-Policy requires), the navigation and the main content. Everything given to it as `body`
/// must already be escaped; `title` is escaped here.
enum HTMLPage {
    /// The center's pages, in the order the navigation lists them.
    enum Section: String, CaseIterable, Sendable {
        case delivered, scheduled, history, apps

        /// The page's path.
        var path: String { self == .delivered ? "/" : "/" + rawValue }
        /// The navigation's label.
        var label: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    /// The sections that have a page in this version.
    static var sections: [Section] { Section.allCases }

    /// A whole HTML document.
    /// - Parameters:
    ///   - title: The page's title (plain text).
    ///   - current: The section shown, marked in the navigation.
    ///   - csrfToken: The session's CSRF token, put where the script finds it (`<meta name="csrf-token">`).
    ///   - body: The main content, HTML already escaped.
    ///   - showsNavigation: Whether to show the navigation and the search box (not on the 401 page).
    ///   - searchText: What the search box holds (plain text): the query on the Search page.
    ///   - unread: How many delivered notifications are unread, shown beside Delivered (`nil` on error pages). The
    ///     script keeps it current from the `/events` stream's `unread` events.
    static func render(
        title: String, current: Section?, csrfToken: String?, body: String, showsNavigation: Bool = true,
        searchText: String = "", unread: Int? = nil
    ) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">

            """
        if let csrfToken { html += "<meta name=\"csrf-token\" content=\"\(csrfToken.htmlEscaped)\">\n" }
        html += """
            <title>\(title.htmlEscaped) · unotify center</title>
            <link rel="stylesheet" href="/static/center.css">
            <script src="/static/center.js" defer></script>
            </head>
            <body>
            <header class="top"><span class="brand">unotify center</span>
            """
        if showsNavigation {
            html += "<nav>"
            for section in sections {
                let currentMark = section == current ? " aria-current=\"page\"" : ""
                html += "<a href=\"\(section.path)\"\(currentMark)>\(section.label)"
                if section == .delivered, let unread { html += " " + unreadBadge(unread, id: "unread-total") }
                html += "</a>"
            }
            html += "</nav><form method=\"get\" action=\"/search\" class=\"search\" role=\"search\">"
            html += "<input type=\"search\" name=\"q\" placeholder=\"Search\" aria-label=\"Search\""
            html += " maxlength=\"\(SearchQuery.maximumLength)\" value=\"\(searchText.htmlEscaped)\"></form>"
            html += "<span id=\"live\" class=\"live\"></span>"
        }
        html += "</header>\n<main>\n" + body + "\n</main>\n</body>\n</html>\n"
        return html
    }

    /// The badge of an unread count: always present (the script updates it), empty and hidden at 0.
    /// - Parameters:
    ///   - count: The number of unread notifications.
    ///   - id: The element's `id` (the navigation's total), or `nil`.
    ///   - app: The app whose count it is (`data-app`), or `nil` for the total.
    static func unreadBadge(_ count: Int, id: String? = nil, app: String? = nil) -> String {
        var html = "<span class=\"unread-count\(count == 0 ? " none" : "")\""
        if let id { html += " id=\"\(id.htmlEscaped)\"" }
        if let app { html += " data-app=\"\(app.htmlEscaped)\"" }
        html += " title=\"unread\">\(count == 0 ? "" : String(count))</span>"
        return html
    }

    /// A 200 response with an HTML document.
    static func response(_ html: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(name.htmlEscaped)\" value=\"\(value.htmlEscaped)\">"
    }
}
