import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the center and how: the secret, the session cookie, CSRF tokens, the same-origin check and the body
/// limit. The middleware every route sits behind (inside ``WebCenterHeaders``); server mode's push statistics pages
/// (`/center` of a worker's API) sit behind it too, with the API's token as the secret and a cookie of their own.
///
/// - `GET …?token=<secret>` opens a session: the answer sets an `HttpOnly; SameSite=Strict` cookie and redirects
///   (303) to the same URL without the token, so the secret leaves the address bar and the history.
/// - Every other request needs the cookie of a session, or `Authorization: Bearer <secret>`; otherwise 401.
/// - A POST needs a session (a bearer request may only read), an `Origin` equal to the center's own (or, without
///   `Origin` or with `Origin: null`, `Sec-Fetch-Site: same-origin`), no other `Sec-Fetch-Site` than `same-origin`, an
///   `application/x-www-form-urlencoded` body of at most ``WebCenterConfiguration/maximumBodySize`` bytes (else 413)
///   and the session's CSRF token in its `csrf` field; otherwise 403 (400 for a form that cannot be read).
package struct WebCenterAccess<Context: WebCenterSessionContext>: RouterMiddleware {
    /// The web center's cookie, which carries the session identifier.
    package static var centerCookieName: String { "unotify-center" }

    /// Whether the `token` of a link opens a session (compared in constant time).
    let opensSession: @Sendable (Substring) -> Bool
    /// Whether an `Authorization: Bearer` token may read (compared in constant time).
    let acceptsBearer: @Sendable (Substring) -> Bool
    let sessions: WebCenterSessions
    let maximumBodySize: Int
    /// The cookie's name: browsers share cookies between the ports of one host, so each site has its own name.
    let cookieName: String
    /// The cookie's `Path`.
    let cookiePath: String
    /// The command that prints the link, named in the 401 page.
    let linkCommand: String

    /// The web center's access rules, with its secret.
    init(secret: WebCenterSecret, sessions: WebCenterSessions, maximumBodySize: Int) {
        self.init(
            opensSession: { secret.matches($0) }, acceptsBearer: { secret.matches($0) }, sessions: sessions,
            maximumBodySize: maximumBodySize, cookieName: Self.centerCookieName, cookiePath: "/",
            linkCommand: "unotify center")
    }

    /// Access rules with other credentials and cookie.
    ///
    /// - Parameters:
    ///   - opensSession: Whether the `token` of a link opens a session (compared in constant time; it may use the
    ///     token up, for one-time links).
    ///   - acceptsBearer: Whether an `Authorization: Bearer` token may read (compared in constant time).
    ///   - sessions: The sessions opened so far.
    ///   - maximumBodySize: The largest form accepted.
    ///   - cookieName: The session cookie's name.
    ///   - cookiePath: The session cookie's `Path`.
    ///   - linkCommand: The command that prints the link, named in the 401 page.
    package init(
        opensSession: @escaping @Sendable (Substring) -> Bool, acceptsBearer: @escaping @Sendable (Substring) -> Bool,
        sessions: WebCenterSessions, maximumBodySize: Int,
        cookieName: String, cookiePath: String, linkCommand: String
    ) {
        self.opensSession = opensSession
        self.acceptsBearer = acceptsBearer
        self.sessions = sessions
        self.maximumBodySize = maximumBodySize
        self.cookieName = cookieName
        self.cookiePath = cookiePath
        self.linkCommand = linkCommand
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        var request = request
        if request.method == .get || request.method == .head, let token = request.uri.queryParameters["token"] {
            guard opensSession(token[...]) else {
                throw WebCenterError(
                    .unauthorized,
                    "the token in the address does not open this site: get a new link from `\(linkCommand)`")
            }
            let session = sessions.open()
            var headers = HTTPFields()
            headers[.location] = Self.locationWithoutToken(path: request.uri.path, query: request.uri.query)
            headers[.setCookie] = "\(cookieName)=\(session.id); Path=\(cookiePath); HttpOnly; SameSite=Strict"
            headers[.cacheControl] = "no-store"
            return Response(status: .seeOther, headers: headers)
        }
        if let cookie = request.cookies[cookieName]?.value, let session = sessions.session(id: cookie) {
            context.session = session
        } else if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
            acceptsBearer(authorization.dropFirst("Bearer ".count))
        {
            context.session = nil
        } else {
            throw WebCenterError(
                .unauthorized, "this page needs the center's secret: open the link `\(linkCommand)` prints")
        }
        guard request.method == .post else { return try await next(request, context) }
        guard let session = context.session else {
            throw WebCenterError(.forbidden, "changes need a session opened with the link `\(linkCommand)` prints")
        }
        try Self.checkSameOrigin(request)
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodySize {
            throw WebCenterError(.tooLarge, "the body is larger than \(maximumBodySize) bytes")
        }
        let contentType = request.headers[.contentType]?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard contentType == "application/x-www-form-urlencoded" else {
            throw WebCenterError(.badRequest, "the center takes application/x-www-form-urlencoded forms only")
        }
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: maximumBodySize) } catch let error as HTTPError
            where error.status == .contentTooLarge
        {
            throw WebCenterError(.tooLarge, "the body is larger than \(maximumBodySize) bytes")
        }
        let form = try FormFields(parsing: String(decoding: body.readableBytesView, as: UTF8.self))
        guard let csrf = form["csrf"],
            WebCenterSecret.constantTimeEquals(Array(csrf.utf8), Array(session.csrfToken.utf8))
        else {
            throw WebCenterError(.forbidden, "the form does not carry this session's CSRF token: reload the page")
        }
        context.form = form
        request.body = .init(buffer: body)
        return try await next(request, context)
    }

    /// Refuses a request that a page of another origin (or no page at all) sends.
    ///
    /// `Sec-Fetch-Site`, which only browsers set (a page's script cannot), must say `same-origin` when present. An
    /// `Origin` must be the center's own, except `null`: under `Referrer-Policy: no-referrer`, Chromium sends
    /// `Origin: null` with the center's own forms, which then count only with `Sec-Fetch-Site: same-origin`. A request
    /// with neither header is refused.
    static func checkSameOrigin(_ request: Request) throws(WebCenterError) {
        let fetchSite = request.headers[HTTPField.Name("Sec-Fetch-Site")!]
        if let fetchSite, fetchSite != "same-origin" {
            throw WebCenterError(
                .forbidden, "a cross-site request (Sec-Fetch-Site: \(fetchSite)) cannot change anything")
        }
        let origin = request.headers[HTTPField.Name("Origin")!]
        switch origin {
        case "null"?, nil:
            guard fetchSite == "same-origin" else {
                throw WebCenterError(
                    .forbidden, "a request without its origin (Origin or Sec-Fetch-Site) cannot change anything")
            }
        case let origin?:
            guard let authority = request.head.authority, origin == "http://" + authority else {
                throw WebCenterError(.forbidden, "a request from another origin (\(origin)) cannot change anything")
            }
        }
    }

    /// The request's path and query without its `token` parameter.
    static func locationWithoutToken(path: String, query: String?) -> String {
        let query = (query ?? "").split(separator: "&").filter { !$0.hasPrefix("token=") && $0 != "token" }
        // Never `//host/…`, which a browser reads as another site.
        let path = path.hasPrefix("/") && !path.hasPrefix("//") ? path : "/"
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }
}
