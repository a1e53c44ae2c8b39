/// Why the push service refused a push or a cancellation.
///
/// A struct wrapping a code, so new codes never break callers that switch over the ones they know.
public struct PushError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// A field of the push is invalid (named in the message).
        public static let invalidPush = Code(name: "invalidPush")
        /// More device identifiers than a push lists (``PushTarget/maximumDevices``).
        public static let tooManyDevices = Code(name: "tooManyDevices")
        /// More pushes than one call takes.
        public static let tooManyPushes = Code(name: "tooManyPushes")
        /// A push with the message identifier exists already.
        public static let duplicateMessage = Code(name: "duplicateMessage")
        /// No push has the message identifier.
        public static let unknownMessage = Code(name: "unknownMessage")
        /// The push is sent, cancelled or expired: nothing is left to cancel.
        public static let alreadySent = Code(name: "alreadySent")
        /// A receipt's credential (the device's token) is not the device's, or the device is unknown.
        public static let unauthorizedDevice = Code(name: "unauthorizedDevice")

        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for people, naming the value at fault.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
