import Foundation
import NotificationModel

/// The Delivered page: the notifications every app has in Notification Center, grouped by app and then by thread,
/// newest first, each with its title, subtitle, body, attachment images, time, the category's action buttons (a
/// text field for text-input actions), Open (the default action), Dismiss and Snooze (10 min, 1 h, tomorrow 9:00);
/// a Clear button per app.
///
/// Pure: it renders what it is given. Every piece of an app's text is escaped.
struct DeliveredPage {
    /// One app's notifications and categories.
    struct AppGroup: Sendable {
        var appID: String
        var notifications: [DeliveredNotification]
        var categories: [CategorySpec]
        /// The identifiers of the notifications not marked read (``ReadMarks``).
        var unread: Set<String> = []
        /// The content extension views of the notifications an extension draws, by identifier.
        var extensionViews: [String: ContentExtensions.View] = [:]

        /// The name the app gave (its newest notification's), else its identifier.
        var displayName: String {
            notifications.lazy.compactMap { $0.request.content.appAppearance?.displayName }.first ?? appID
        }
    }

    var apps: [AppGroup]
    var csrfToken: String
    /// Formats an instant for people.
    var format: (Date) -> String

    /// The groups in the page's order: apps by their newest notification, threads the same way, notifications
    /// newest first (equal dates: the fire recorded last first, as the stores list them, then by identifier).
    static func ordered(_ apps: [AppGroup]) -> [AppGroup] {
        apps.filter { !$0.notifications.isEmpty }.map { app in
            var app = app
            app.notifications.sort {
                ($0.date, $0.historyID ?? 0, $0.identifier) > ($1.date, $1.historyID ?? 0, $1.identifier)
            }
            return app
        }.sorted { ($0.notifications[0].date, $1.appID) > ($1.notifications[0].date, $0.appID) }
    }

    /// The page's main content.
    func render() -> String {
        let apps = Self.ordered(apps)
        guard !apps.isEmpty else {
            return "<h1>Delivered</h1>\n<p class=\"empty\">No delivered notifications.</p>"
        }
        var html = "<div class=\"page-head\"><h1>Delivered</h1>"
        if apps.contains(where: { !$0.unread.isEmpty }) {
            html += "<form method=\"post\" action=\"/delivered/read\">" + HTMLPage.hidden("csrf", csrfToken)
            html += "<button type=\"submit\" class=\"mark-all-read\">Mark all read</button></form>"
        }
        html += "</div>\n"
        for app in apps {
            html += "<section class=\"app\" data-app=\"\(app.appID.htmlEscaped)\">\n"
            html += "<div class=\"app-head\"><h2>\(app.displayName.htmlEscaped)"
            if app.displayName != app.appID { html += " <span class=\"app-id\">\(app.appID.htmlEscaped)</span>" }
            html += " " + HTMLPage.unreadBadge(app.unread.count, app: app.appID) + "</h2><div class=\"app-buttons\">"
            if !app.unread.isEmpty {
                html += "<form method=\"post\" action=\"/delivered/read\">"
                html += HTMLPage.hidden("csrf", csrfToken) + HTMLPage.hidden("app", app.appID)
                html += "<button type=\"submit\" class=\"mark-read\">Mark all read</button></form>"
            }
            html += "<form method=\"post\" action=\"/delivered/clear\">"
            html += HTMLPage.hidden("csrf", csrfToken) + HTMLPage.hidden("app", app.appID)
            html += "<button type=\"submit\" class=\"clear\">Clear</button></form></div></div>\n"
            // Threads in the order of their newest notification (the list is sorted newest first).
            var threads: [String] = []
            for notification in app.notifications where !threads.contains(notification.request.content.threadIdentifier)
            {
                threads.append(notification.request.content.threadIdentifier)
            }
            for thread in threads {
                let members = app.notifications.filter { $0.request.content.threadIdentifier == thread }
                html += "<div class=\"thread\" data-thread=\"\(thread.htmlEscaped)\">"
                if !thread.isEmpty { html += "<h3>\(thread.htmlEscaped)</h3>" }
                for notification in members { html += article(notification, app: app) }
                html += "</div>\n"
            }
            html += "</section>\n"
        }
        return html
    }

    private func article(_ notification: DeliveredNotification, app: AppGroup) -> String {
        let content = notification.request.content
        let id = notification.identifier
        let unread = app.unread.contains(id)
        var html = "<article class=\"notification\(unread ? " unread" : "")\" data-id=\"\(id.htmlEscaped)\">"
        html += "<div class=\"meta\">"
        if unread { html += "<span class=\"unread-dot\" title=\"unread\"></span>" }
        html += "<time datetime=\"\(WebCenter.machineTime(notification.date))\">"
        html += "\(format(notification.date).htmlEscaped)</time></div>"
        if !content.title.isEmpty { html += "<p class=\"title\">\(content.title.htmlEscaped)</p>" }
        if !content.subtitle.isEmpty { html += "<p class=\"subtitle\">\(content.subtitle.htmlEscaped)</p>" }
        if !content.body.isEmpty { html += "<p class=\"body\">\(content.body.htmlEscaped)</p>" }
        for (index, attachment) in content.attachments.enumerated() where Self.imageType(attachment.type) != nil {
            let source =
                "/attachments/\(app.appID.urlComponentEncoded)/\(id.urlComponentEncoded)/\(index)"
            html +=
                "<img class=\"attachment\" src=\"\(source.htmlEscaped)\" alt=\"\(attachment.identifier.htmlEscaped)\">"
        }
        switch app.extensionViews[id] {
        case .html?:
            html += ContentExtensionFrame.iframe(app: app.appID, notification: id, title: content.title)
        case .failed(let reason)?:
            html += "<p class=\"extension-note\">The app's content extension could not draw this notification ("
            html += "it \(reason.htmlEscaped)): its plain content is shown.</p>"
        case nil:
            break
        }
        html += "<div class=\"actions\">"
        html += form("/delivered/respond", app: app.appID, id: id, action: ResponseSpec.defaultActionIdentifier) {
            "<button type=\"submit\" class=\"open\">Open</button>"
        }
        let category = app.categories.first { $0.identifier == content.categoryIdentifier }
        for action in category?.actions ?? [] {
            let destructive = action.options & 2 != 0 ? " destructive" : ""
            if let input = action.textInput {
                html += form(
                    "/delivered/respond", app: app.appID, id: id, action: action.identifier, classes: "text-action"
                ) {
                    "<label><span class=\"action-title\">\(action.title.htmlEscaped)</span>"
                        + "<input type=\"text\" name=\"text\" maxlength=\"4000\" placeholder=\"\(input.placeholder.htmlEscaped)\"></label>"
                        + "<button type=\"submit\" class=\"action\(destructive)\">"
                        + "\((input.buttonTitle.isEmpty ? action.title : input.buttonTitle).htmlEscaped)</button>"
                }
            } else {
                html += form("/delivered/respond", app: app.appID, id: id, action: action.identifier) {
                    "<button type=\"submit\" class=\"action\(destructive)\">\(action.title.htmlEscaped)</button>"
                }
            }
        }
        if unread {
            html += form("/delivered/read", app: app.appID, id: id, action: nil) {
                "<button type=\"submit\" class=\"mark-read\">Mark read</button>"
            }
        }
        html += form("/delivered/dismiss", app: app.appID, id: id, action: nil) {
            "<button type=\"submit\" class=\"dismiss\">Dismiss</button>"
        }
        html += form("/delivered/snooze", app: app.appID, id: id, action: nil, classes: "snooze") {
            "<span class=\"action-title\">Snooze</span>"
                + SnoozeChoice.allCases.map {
                    "<button type=\"submit\" name=\"for\" value=\"\($0.rawValue)\" class=\"snooze\">\($0.label)</button>"
                }.joined()
        }
        html += "</div></article>\n"
        return html
    }

    private func form(
        _ path: String, app: String, id: String, action: String?, classes: String = "", _ inner: () -> String
    ) -> String {
        var html = "<form method=\"post\" action=\"\(path)\"\(classes.isEmpty ? "" : " class=\"\(classes)\"")>"
        html += HTMLPage.hidden("csrf", csrfToken) + HTMLPage.hidden("app", app) + HTMLPage.hidden("id", id)
        if let action { html += HTMLPage.hidden("action", action) }
        return html + inner() + "</form>"
    }

    /// The MIME type of an attachment the center shows as an image, or `nil`.
    static func imageType(_ uti: String) -> String? {
        switch uti {
        case "public.png": "image/png"
        case "public.jpeg": "image/jpeg"
        case "com.compuserve.gif": "image/gif"
        default: nil
        }
    }
}
