import Hummingbird

/// What the center's routes know about a request beyond the request itself: the browser session it came with
/// (`nil` for a request authorized by `Authorization: Bearer`) and, for a POST that passed the checks, its form.
public struct WebCenterRequestContext: WebCenterSessionContext {
    public var coreContext: CoreRequestContextStorage
    /// The session of the cookie; `nil` for bearer requests.
    package var session: WebCenterSessions.Session?
    /// The checked form fields of a POST (empty for other methods).
    package var form: FormFields

    /// Hummingbird makes one per request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        form = try! FormFields(parsing: "")  // an empty text has nothing that can fail
    }
}
