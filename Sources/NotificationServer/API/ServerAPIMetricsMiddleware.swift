import Hummingbird

/// The outermost middleware of the server API: counts every answer by route pattern and status and times it
/// (``ServerMetrics/recordRequest(route:status:seconds:)``: `unotify_api_requests_total{worker,route,status}` and
/// `unotify_api_request_duration_seconds{worker,route}` on `/metrics`).
///
/// The route is the method and the pattern the router matched (`GET /v1/devices/{id}`), or `unmatched` for a path
/// or method no route serves, so the series stay few whatever paths clients send. Refusals count too (a 401 before the
/// token check reached a route is counted under the route the path matched). The duration runs from the request's
/// arrival at the router to the answer's head (a streamed body's sending is not in it); it is measured with the
/// system's monotonic clock, which is what a latency figure needs and no scheduling logic reads.
///
/// ```swift
/// router.add(middleware: ServerAPIMetricsMiddleware(metrics: metrics))   // first: it sees the final answer
/// router.add(middleware: ServerAPIGuard(...))
/// ```
struct ServerAPIMetricsMiddleware: RouterMiddleware {
    typealias Context = ServerAPIRequestContext
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, since: started)
            return response
        } catch {
            // The guard turns every error into an answer; an error reaching here is answered by Hummingbird.
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, since: started)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(
            route: ServerAPI.routeName(request, endpointPath: context.endpointPath), status: status, seconds: seconds)
    }
}
