import Foundation

/// Why an ``APNsClient`` refused to send a notification or could not be set up: bad input caught before anything
/// goes on the wire. Answers from the server are never thrown; they are ``APNsDelivery/Outcome`` values.
///
/// An extensible struct: new kinds of error can be added without breaking code that switches over ``Code``.
///
/// ```swift
/// do {
///     let delivery = try await client.send(notification)
/// } catch let error as APNsClientError where error.code == .payloadTooLarge {
///     print(error)   // "the payload has 4100 bytes; APNs takes at most 4096 for a alert push"
/// }
/// ```
public struct APNsClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: Sendable, Hashable {
            case payloadTooLarge, invalidPayload, invalidDeviceToken, invalidTopic, invalidCollapseID
            case invalidSigningKey, invalidConfiguration, shutDown
        }
        let value: Value

        /// The payload is over APNs's limit: 4096 bytes, 5120 for VoIP pushes.
        public static let payloadTooLarge = Code(value: .payloadTooLarge)
        /// The payload is not a JSON object.
        public static let invalidPayload = Code(value: .invalidPayload)
        /// The device token is not an even number of hex digits.
        public static let invalidDeviceToken = Code(value: .invalidDeviceToken)
        /// The topic is empty, too long or has white space.
        public static let invalidTopic = Code(value: .invalidTopic)
        /// The collapse identifier is empty or longer than 64 bytes.
        public static let invalidCollapseID = Code(value: .invalidCollapseID)
        /// The `.p8` key cannot be read or is not a P-256 private key, or a key or team identifier is malformed.
        public static let invalidSigningKey = Code(value: .invalidSigningKey)
        /// A configuration value is out of range.
        public static let invalidConfiguration = Code(value: .invalidConfiguration)
        /// The client was shut down.
        public static let shutDown = Code(value: .shutDown)

        public var description: String { "\(value)" }
    }

    /// The kind of error.
    public let code: Code
    /// A sentence saying what is wrong and what the limit is.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
