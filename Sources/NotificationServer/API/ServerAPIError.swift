import HTTPTypes

/// Why the server API refused a request: an HTTP status, a short machine-readable reason and a sentence for people.
///
/// Rendered as `{"reason": "...", "detail": "..."}` by ``ServerAPIGuard``. A struct, so new reasons never break
/// callers.
public struct ServerAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status of the answer (always 4xx or 5xx).
    public var status: HTTPResponse.Status
    /// A stable word such as `BadJSON`, `UnknownDevice`, `InvalidTrigger`.
    public var reason: String
    /// What was wrong, naming the value at fault.
    public var detail: String

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, reason: String, detail: String) {
        self.status = status
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(status.code) \(reason): \(detail)" }

    /// A 400 for a body that is not what the route takes.
    static func badRequest(_ detail: String) -> ServerAPIError {
        ServerAPIError(.badRequest, reason: "BadRequest", detail: detail)
    }
}
