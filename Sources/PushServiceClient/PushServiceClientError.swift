/// Why the push service client could not do what it was asked: its queue folder cannot be made or written, or a call
/// the app waits for (binding, ``PushServiceClient/audience()``) was refused or could not reach the server.
///
/// ```swift
/// do { _ = try await client.bindTags(["news"]) }
/// catch let error as PushServiceClientError where error.reason == "TooManyTags" { print(error.message) }
/// catch let error as PushServiceClientError where error.isUnreachable { /* offline: try again later */ }
/// ```
public struct PushServiceClientError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in one line.
    public let message: String
    /// The HTTP status the push service answered with (`400`, `401`, `404`, `503`), or `nil` when it gave no answer
    /// or the error is the client's own (its queue).
    public let status: Int?
    /// The push service's reason word (`TooManyTags`, `InvalidName`, `Unauthorized`), when it answered with one.
    public let reason: String?
    /// Whether the push service could not be reached at all (offline, server down, a timeout): nothing was done, and
    /// the same call may succeed later.
    public let isUnreachable: Bool

    /// Creates an error of the client's own, with its message.
    public init(_ message: String) {
        self.init(message, status: nil, reason: nil, isUnreachable: false)
    }

    /// Creates an error with the push service's answer, or for a server that could not be reached.
    ///
    /// - Parameters:
    ///   - message: What went wrong, in one line.
    ///   - status: The HTTP status answered, `nil` for none.
    ///   - reason: The server's reason word, when it gave one.
    ///   - isUnreachable: Whether the server could not be reached.
    public init(_ message: String, status: Int?, reason: String?, isUnreachable: Bool = false) {
        self.message = message
        self.status = status
        self.reason = reason
        self.isUnreachable = isUnreachable
    }

    public var description: String { message }
}
