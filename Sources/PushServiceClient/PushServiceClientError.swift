/// Why the push service client could not do what it was asked: its queue folder cannot be made or written.
///
/// ```swift
/// do { _ = try PushServiceClient(serverURL: url, deviceID: id, deviceToken: token, queueFolder: folder) }
/// catch let error as PushServiceClientError { print(error.message) }
/// ```
public struct PushServiceClientError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in one line.
    public let message: String

    /// Creates an error with its message.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
