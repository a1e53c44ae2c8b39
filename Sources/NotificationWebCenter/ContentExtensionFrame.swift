import Hummingbird

/// How a content extension's view is framed: the `<iframe>` the Delivered page draws, and the response of its own
/// route (`GET /extension/:app/:notification`) with a Content-Security-Policy of its own.
///
/// The frame is sandboxed without `allow-same-origin` (an opaque origin: no access to the center's pages, cookies
/// or storage; no forms, popups or navigation of the page), and the view's policy says the same (`sandbox
/// allow-scripts`), so the view stays sandboxed even when its address is opened on its own. Its inline styles and
/// scripts run; nothing loads from anywhere (`data:` images and fonts only) unless the app declared
/// ``ContentExtensionDeclaration/allowsNetwork``, which allows `https:` sources and connections.
///
/// ```swift
/// html += ContentExtensionFrame.iframe(app: "com.example.chat", notification: "n1", title: "Lunch?")
/// ```
enum ContentExtensionFrame {
    /// The view's Content-Security-Policy.
    static func policy(allowsNetwork: Bool) -> String {
        let remote = allowsNetwork ? " https:" : ""
        return "default-src 'none'; style-src 'unsafe-inline'\(remote); script-src 'unsafe-inline'\(remote); "
            + "img-src data:\(remote); font-src data:\(remote); media-src data:\(remote); "
            + (allowsNetwork ? "connect-src https:; " : "")
            + "form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-scripts"
    }

    /// The `<iframe>` of a notification's view.
    static func iframe(app: String, notification: String, title: String) -> String {
        let source = "/extension/\(app.urlComponentEncoded)/\(notification.urlComponentEncoded)"
        return "<iframe class=\"extension-view\" sandbox=\"allow-scripts\" src=\"\(source.htmlEscaped)\""
            + " title=\"\(title.htmlEscaped)\" referrerpolicy=\"no-referrer\"></iframe>"
    }

    /// The response of the view's route: the extension's HTML under its own policy.
    static func response(_ html: String, allowsNetwork: Bool) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: policy(allowsNetwork: allowsNetwork),
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
