/// Why a content extension gave no usable answer: it could not be started, failed, answered too much, answered
/// bytes that are not UTF-8, or not in time. The center then shows the plain notification with a note saying this
/// (or, for an action, hands the action to the app).
///
/// ```swift
/// throw ContentExtensionFailure("answered more than 262144 bytes")
/// ```
public struct ContentExtensionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as the note says it after "the app's content extension".
    public var message: String

    /// Creates a failure.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
