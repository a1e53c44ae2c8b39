import Hummingbird

/// The request context of the server API's routes: Hummingbird's core context and the client the request came
/// from, which ``ServerAPIGuard`` sets once the bearer token is checked, before a route runs.
public struct ServerAPIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The name of the client whose token the request brought (a name of `--api-token-file`, ``ServerAPITokens``), or
    /// `device:<id>` for a device on its own routes with its APNs token; `nil` before the check and on routes that
    /// need no token (the `/center` pages, a device's receipts). Also in the request's logger as `client`.
    public var client: String?

    /// Hummingbird makes one per request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
