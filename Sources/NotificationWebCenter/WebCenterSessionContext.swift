import Hummingbird

/// A request context that ``WebCenterAccess`` can fill in: the browser session a request came with and, for a POST
/// that passed the checks, its form. The web center's own ``WebCenterRequestContext`` is one; server mode's push
/// statistics pages (`NotificationServer`, `/center`) have another, so that both sit behind the same access rules.
///
/// ```swift
/// struct PagesContext: WebCenterSessionContext {
///     var coreContext: CoreRequestContextStorage
///     var session: WebCenterSessions.Session?
///     var form = try! FormFields(parsing: "")
///     init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
/// }
/// ```
package protocol WebCenterSessionContext: RequestContext {
    /// The session of the cookie; `nil` for bearer requests.
    var session: WebCenterSessions.Session? { get set }
    /// The checked form fields of a POST (empty for other methods).
    var form: FormFields { get set }
}
