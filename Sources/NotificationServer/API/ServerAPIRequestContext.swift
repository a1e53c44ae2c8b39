import Hummingbird

/// The request context of the server API's routes: Hummingbird's core context and nothing more (the bearer token
/// is checked by ``ServerAPIGuard`` before a route runs).
public struct ServerAPIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    /// Hummingbird makes one per request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
