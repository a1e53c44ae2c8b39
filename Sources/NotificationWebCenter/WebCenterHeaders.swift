import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware: turns every error into an HTML error page with its status (never a stack trace, the
/// message escaped), and gives every response, error pages included, the center's security headers. Server mode's
/// push statistics pages (`/center` of a worker's API) sit behind it too, with error pages in their own frame.
package struct WebCenterHeaders<Context: RequestContext>: RouterMiddleware {
    /// The Content-Security-Policy of every response: nothing from elsewhere, no inline script or style.
    package static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    }

    let logger: Logger
    /// The HTML document of an error page: its title, its body (escaped) and whether to show the navigation.
    let errorDocument: @Sendable (_ title: String, _ body: String, _ showsNavigation: Bool) -> String

    /// The web center's headers and error pages.
    init(logger: Logger) {
        self.init(logger: logger) { title, body, showsNavigation in
            HTMLPage.render(
                title: title, current: nil, csrfToken: nil, body: body, showsNavigation: showsNavigation)
        }
    }

    /// The headers, with error pages drawn by `errorDocument`.
    ///
    /// - Parameters:
    ///   - logger: Where failures are logged.
    ///   - errorDocument: The whole document of an error page, from its title, its body (HTML, escaped) and whether
    ///     to show the navigation (not on the 401 page).
    package init(
        logger: Logger,
        errorDocument: @escaping @Sendable (_ title: String, _ body: String, _ showsNavigation: Bool) -> String
    ) {
        self.logger = logger
        self.errorDocument = errorDocument
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as WebCenterError {
            response = errorPage(error)
        } catch let error as HTTPError {
            let code: WebCenterError.Code =
                switch error.status.code {
                case 401: .unauthorized
                case 403: .forbidden
                case 404: .notFound
                case 413: .tooLarge
                default: .badRequest
                }
            let message =
                error.status.code == 404 ? "there is no page at \(request.uri.path)" : error.status.reasonPhrase
            response = errorPage(WebCenterError(code, message))
            if error.status.code >= 500 { response.status = error.status }
        } catch {
            logger.error("the web center failed to answer \(request.method) \(request.uri.path): \(error)")
            response = errorPage(WebCenterError(.refused, "the center failed: \(error)"))
            response.status = .internalServerError
        }
        // A content extension's view brings a policy of its own (stricter: a sandbox, no network unless declared)
        // and is framed by the center's pages; every other response gets the center's and may not be framed.
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        }
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }

    /// An HTML page saying what went wrong, with the error's status.
    func errorPage(_ error: WebCenterError) -> Response {
        let status: HTTPResponse.Status =
            switch error.status {
            case 400: .badRequest
            case 401: .unauthorized
            case 403: .forbidden
            case 404: .notFound
            case 413: .contentTooLarge
            case 422: .unprocessableContent
            default: .internalServerError
            }
        let html = errorDocument(
            "\(status.code) \(status.reasonPhrase)",
            "<section class=\"error\"><h1>\(status.code) \(status.reasonPhrase.htmlEscaped)</h1><p>\(error.message.htmlEscaped)</p></section>",
            error.code != .unauthorized)
        var response = HTMLPage.response(html)
        response.status = status
        if error.code == .unauthorized {
            response.headers[.wwwAuthenticate] = "Bearer realm=\"unotify center\""
        }
        return response
    }
}
