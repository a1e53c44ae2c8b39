import Foundation
import NotificationModel

/// The Apps page: each app's settings as iOS shows them (allow notifications; alerts, sounds, badges), its badge,
/// pending count and its categories with their actions. The settings form changes the same state as
/// `unotify authorize` (the engine's `setAuthorization`).
///
/// Pure: it renders what it is given. Every piece of an app's text is escaped.
struct AppsPage {
    /// One app's state.
    struct App: Sendable {
        var state: AppState
        var categories: [CategorySpec]
        var pendingCount: Int
        var deliveredCount: Int
    }

    var apps: [App]
    var csrfToken: String

    /// The options the page lets a person turn on and off, with their labels.
    static let options: [(name: String, label: String, option: AuthorizationSet)] = [
        ("alert", "Alerts", .alert), ("sound", "Sounds", .sound), ("badge", "Badges", .badge),
    ]

    func render() -> String {
        var html = "<h1>Apps</h1>\n"
        guard !apps.isEmpty else { return html + "<p class=\"empty\">No app has used notifications yet.</p>" }
        for app in apps {
            let state = app.state
            let id = state.appID
            html += "<section class=\"app settings\" data-app=\"\(id.htmlEscaped)\"><h2>\(id.htmlEscaped)</h2>\n"
            html +=
                "<p class=\"muted\">Authorization: <span class=\"status\">\(String(describing: state.authorization))</span>"
            html += " · badge \(state.badge) · \(app.pendingCount) pending · \(app.deliveredCount) delivered</p>\n"
            html += "<form method=\"post\" action=\"/apps/settings\" class=\"app-settings\">"
            html += HTMLPage.hidden("csrf", csrfToken) + HTMLPage.hidden("app", id)
            let allowed = state.authorization.allowsDelivery ? " checked" : ""
            html += "<label><input type=\"checkbox\" name=\"allow\" value=\"on\"\(allowed)> Allow notifications</label>"
            for option in Self.options {
                let checked = state.grantedOptions.contains(option.option) ? " checked" : ""
                html +=
                    " <label><input type=\"checkbox\" name=\"\(option.name)\" value=\"on\"\(checked)> \(option.label)</label>"
            }
            html += " <button type=\"submit\">Save</button></form>\n"
            if state.badge > 0 {
                html += "<form method=\"post\" action=\"/apps/badge\">" + HTMLPage.hidden("csrf", csrfToken)
                html += HTMLPage.hidden("app", id) + HTMLPage.hidden("count", "0")
                html += "<button type=\"submit\">Clear badge (\(state.badge))</button></form>\n"
            }
            if app.categories.isEmpty {
                html += "<p class=\"muted\">No categories.</p>"
            } else {
                html += "<table class=\"categories\"><thead><tr><th>Category</th><th>Actions</th></tr></thead><tbody>"
                for category in app.categories {
                    html += "<tr><td class=\"request-id\">\(category.identifier.htmlEscaped)"
                    if category.sendsDismissAction { html += "<br><span class=\"muted\">custom dismiss action</span>" }
                    html += "</td><td>"
                    html += category.actions.map { action in
                        var words =
                            "\(action.title.htmlEscaped) <span class=\"muted\">(\(action.identifier.htmlEscaped)"
                        if action.textInput != nil { words += ", text input" }
                        if action.options & 2 != 0 { words += ", destructive" }
                        if action.options & 4 != 0 { words += ", foreground" }
                        if action.options & 1 != 0 { words += ", authentication required" }
                        return words + ")</span>"
                    }.joined(separator: "<br>")
                    html += "</td></tr>"
                }
                html += "</tbody></table>\n"
            }
            html += "</section>\n"
        }
        return html
    }
}
