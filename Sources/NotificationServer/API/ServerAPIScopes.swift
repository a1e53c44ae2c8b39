/// What a client of the server API may do: the scopes a line of the token file gives its token
/// (`NAME TOKEN read,schedule`, ``ServerAPITokens``). A token without scopes has them all.
///
/// | scope | routes |
/// |---|---|
/// | `read` | every `GET` (status, metrics, devices, pending requests, audiences, pushes' statistics), `POST /v1/device-checks`, `POST /v1/audience-counts`, `POST /v1/center-links` and the `/center` pages with a bearer token |
/// | `schedule` | requests: `POST /v1/devices/{id}/requests`, `DELETE /v1/devices/{id}/requests/{identifier}`, `POST /v1/requests`, `POST /v1/request-batches`; pushes: `POST /v1/pushes`, `POST /v1/mass-pushes`, `DELETE /v1/pushes/{messageId}` |
/// | `devices` | `PUT` and `DELETE /v1/devices/{id}`, and a device's audience: `PUT`/`DELETE .../account`, `POST .../aliases` and `.../tags`, `DELETE .../aliases/{alias}` and `.../tags/{tag}` |
///
/// A route outside the client's scopes answers 403 `Forbidden` (``ServerAPI/requiredScopes(method:path:)`` says which
/// a request needs; a path no route above serves needs them all, so a route added later is closed to limited clients
/// until it is given a scope).
///
/// ```swift
/// let scopes = try ServerAPIScopes(parsing: "read,schedule")
/// scopes.contains(.devices)   // false
/// ```
public struct ServerAPIScopes: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Reading: every `GET`, and the `POST`s that only read.
    public static let read = ServerAPIScopes(rawValue: 1 << 0)
    /// Scheduling and cancelling requests and pushes.
    public static let schedule = ServerAPIScopes(rawValue: 1 << 1)
    /// Registering and removing devices, and their audiences.
    public static let devices = ServerAPIScopes(rawValue: 1 << 2)
    /// Every scope: a token without scopes.
    public static let all: ServerAPIScopes = [.read, .schedule, .devices]

    /// Each scope's name in a token file, in order.
    public static let names: [(name: String, scope: ServerAPIScopes)] = [
        ("read", .read), ("schedule", .schedule), ("devices", .devices),
    ]

    /// Reads a comma-separated list of scope names (`read,schedule`), without spaces.
    ///
    /// - Throws: ``ServerAPITokens/FileError`` (without a line) naming an unknown or empty name.
    public init(parsing list: some StringProtocol) throws(ServerAPITokens.FileError) {
        var scopes: ServerAPIScopes = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let scope = Self.names.first(where: { $0.name == name })?.scope else {
                let known = Self.names.map(\.name).joined(separator: ", ")
                throw ServerAPITokens.FileError(
                    line: nil,
                    name.isEmpty
                        ? "an empty scope in '\(list)': scopes are \(known), separated by commas"
                        : "unknown scope '\(name)': scopes are \(known), separated by commas")
            }
            scopes.insert(scope)
        }
        self = scopes
    }

    /// The names, comma-separated, in the order of ``names`` (`none` for no scope).
    public var description: String {
        let names = Self.names.filter { contains($0.scope) }.map(\.name)
        return names.isEmpty ? "none" : names.joined(separator: ",")
    }
}
