/// Why registering for remote notifications failed.
public struct RemoteNotificationRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
