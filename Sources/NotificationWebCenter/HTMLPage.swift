import Hummingbird

/// The frame every page of the center shares: the document, the stylesheet and script (served by the center itself,
/// as the Content-Security-Policy requires), the navigation and the main content. Everything given to it as `body`
/// must already be escaped; `title` is escaped here.
package enum HTMLPage {
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
        var header = ""
        if showsNavigation {
            header += "<nav>"
            for section in sections {
                let currentMark = section == current ? " aria-current=\"page\"" : ""
                header += "<a href=\"\(section.path)\"\(currentMark)>\(section.label)"
                if section == .delivered, let unread { header += " " + unreadBadge(unread, id: "unread-total") }
                header += "</a>"
            }
            header += "</nav><form method=\"get\" action=\"/search\" class=\"search\" role=\"search\">"
            header += "<input type=\"search\" name=\"q\" placeholder=\"Search\" aria-label=\"Search\""
            header += " maxlength=\"\(SearchQuery.maximumLength)\" value=\"\(searchText.htmlEscaped)\"></form>"
            header += "<span id=\"live\" class=\"live\"></span>"
        }
        return document(
            title: title, brand: "unotify center", stylesheets: ["/static/center.css"], scripts: ["/static/center.js"],
            meta: csrfToken.map { ["csrf-token": $0] } ?? [:], header: header, body: body)
    }

    /// A whole HTML document in the center's frame: the head (charset, viewport, `no-referrer`, the stylesheets and
    /// deferred scripts, all served by the site itself as the Content-Security-Policy requires), the top bar with the
    /// brand and `header`, and the main content.
    ///
    /// ```swift
    /// HTMLPage.document(title: "Pushes", brand: "unotify push center", stylesheets: ["/center/static/center.css"],
    ///                   scripts: [], header: "<nav>…</nav>", body: "<h1>Pushes</h1>")
    /// ```
    ///
    /// - Parameters:
    ///   - title: The page's title (plain text), followed by ` · ` and the brand.
    ///   - brand: The site's name (plain text), in the title and the top bar.
    ///   - stylesheets: The stylesheets' paths.
    ///   - scripts: The scripts' paths (loaded `defer`).
    ///   - meta: `<meta name content>` pairs (plain text), for the scripts to read.
    ///   - header: The top bar's content after the brand, HTML already escaped.
    ///   - body: The main content, HTML already escaped.
    package static func document(
        title: String, brand: String, stylesheets: [String], scripts: [String], meta: [String: String] = [:],
        header: String, body: String
    ) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">

            """
        for (name, content) in meta.sorted(by: { $0.key < $1.key }) {
            html += "<meta name=\"\(name.htmlEscaped)\" content=\"\(content.htmlEscaped)\">\n"
        }
        html += "<title>\(title.htmlEscaped) · \(brand.htmlEscaped)</title>\n"
        for stylesheet in stylesheets { html += "<link rel=\"stylesheet\" href=\"\(stylesheet.htmlEscaped)\">\n" }
        for script in scripts { html += "<script src=\"\(script.htmlEscaped)\" defer></script>\n" }
        html += "</head>\n<body>\n<header class=\"top\"><span class=\"brand\">\(brand.htmlEscaped)</span>"
        html += header + "</header>\n<main>\n" + body + "\n</main>\n</body>\n</html>\n"
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
    package static func response(_ html: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(name.htmlEscaped)\" value=\"\(value.htmlEscaped)\">"
    }
}
