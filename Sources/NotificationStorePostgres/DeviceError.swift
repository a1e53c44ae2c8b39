/// Why the device registry refused a call: bad input, or a device it does not know.
///
/// A struct wrapping a code, so new codes never break callers that switch over the ones they know.
public struct DeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// The identifier is empty, too long, or has control characters.
        public static let invalidIdentifier = Code(name: "invalidIdentifier")
        /// The token is not 64 hex digits.
        public static let malformedToken = Code(name: "malformedToken")
        /// The topic is empty or has spaces or control characters.
        public static let invalidTopic = Code(name: "invalidTopic")
        /// The zone is not an IANA zone identifier this machine knows.
        public static let unknownTimeZone = Code(name: "unknownTimeZone")
        /// The locale identifier is empty or has spaces or control characters.
        public static let invalidLocale = Code(name: "invalidLocale")
        /// No device has that identifier.
        public static let unknownDevice = Code(name: "unknownDevice")
        /// The device is inactive (APNs reported its token gone): register it again with a new token.
        public static let inactiveDevice = Code(name: "inactiveDevice")

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
