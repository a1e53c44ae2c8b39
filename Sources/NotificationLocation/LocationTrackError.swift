/// A track file that cannot be read: the file itself, or a line or point in it.
public struct LocationTrackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, naming the line or point.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
