import HTTPTypes

// Which scope each route needs (``ServerAPIScopes``), checked by ``ServerAPIGuard`` before the router runs.
extension ServerAPI {
    /// The scopes a request needs, from its method and path (before routing, so the check happens whatever the
    /// route does): `read` for every `GET` and `HEAD` and the `POST`s that only read, `schedule` for requests and
    /// pushes, `devices` for devices and their audiences (the table of ``ServerAPIScopes``); every scope for a
    /// method and path none of these cover, so a route added later is closed to limited clients until it is listed
    /// here.
    ///
    /// ```swift
    /// ServerAPI.requiredScopes(method: .put, path: "/v1/devices/phone-1")   // .devices
    /// ```
    ///
    /// - Parameters:
    ///   - method: The request's method.
    ///   - path: The request's path as sent (percent-encoded segments stay one segment each).
    public static func requiredScopes(method: HTTPRequest.Method, path: String) -> ServerAPIScopes {
        if method == .get || method == .head { return .read }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "v1", !parts.dropFirst().contains("") else {
            return .all
        }
        // The path's shape: the identifiers a route captures become `*`.
        var segments = Array(parts.dropFirst(2))
        if segments.count >= 2, segments[0] == "devices" || segments[0] == "pushes" { segments[1] = "*" }
        if segments.count == 4, segments[0] == "devices" { segments[3] = "*" }
        return scopesByShape["\(method) \(segments.joined(separator: "/"))"] ?? .all
    }

    /// The scope of each route other than a `GET`, by method and path shape (after `/v1/`, identifiers as `*`).
    static let scopesByShape: [String: ServerAPIScopes] = [
        "POST device-checks": .read, "POST audience-counts": .read, "POST center-links": .read,
        "POST requests": .schedule, "POST request-batches": .schedule, "POST pushes": .schedule,
        "POST mass-pushes": .schedule, "DELETE pushes/*": .schedule, "POST devices/*/requests": .schedule,
        "DELETE devices/*/requests/*": .schedule,
        "PUT devices/*": .devices, "DELETE devices/*": .devices, "PUT devices/*/account": .devices,
        "DELETE devices/*/account": .devices, "POST devices/*/aliases": .devices, "POST devices/*/tags": .devices,
        "DELETE devices/*/aliases/*": .devices, "DELETE devices/*/tags/*": .devices,
    ]
}
