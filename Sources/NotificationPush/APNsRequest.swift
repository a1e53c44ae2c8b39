import Foundation
import NotificationModel

/// One provider request as the APNs endpoint receives it: method, path, headers and body.
///
/// The HTTP/2 endpoint builds one per stream and hands it to ``PushGateway/handle(_:)``; ``validate()`` checks
/// everything that needs no store (path, headers, payload), in the order APNs reports errors.
///
/// ```swift
/// let request = APNsRequest(
///     method: "POST", path: "/3/device/\(token.hex)",
///     headers: [("apns-push-type", "alert"), ("apns-topic", "com.example.app")],
///     body: Data(#"{"aps":{"alert":"Hi"}}"#.utf8))
/// let push = try request.validate()
/// ```
public struct APNsRequest: Sendable {
    /// The HTTP method; only `POST` is allowed.
    public var method: String
    /// The `:path`, `/3/device/<64 hex digits>`.
    public var path: String
    /// The headers in the order received; names are compared without case.
    public var headers: [(name: String, value: String)]
    /// The payload.
    public var body: Data

    /// Creates a request.
    public init(method: String = "POST", path: String, headers: [(name: String, value: String)] = [], body: Data) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The `apns-` headers this endpoint reads; each may appear once.
    public static let knownHeaders: Set<String> = [
        "apns-id", "apns-push-type", "apns-priority", "apns-expiration", "apns-topic", "apns-collapse-id",
        "authorization",
    ]

    /// The longest `apns-collapse-id`, in bytes.
    public static let collapseIdentifierLimit = 64

    /// Checks the path, headers and payload.
    ///
    /// - Returns: The request's parts, typed.
    /// - Throws: The ``APNsReason`` APNs answers with: `MethodNotAllowed`, `BadPath`, `MissingDeviceToken`,
    ///   `BadDeviceToken`, `DuplicateHeaders`, `BadMessageId`, `InvalidPushType`, `BadPriority`,
    ///   `BadExpirationDate`, `BadTopic`, `BadCollapseId`, `PayloadEmpty`, `PayloadTooLarge`.
    public func validate() throws(APNsReason) -> ValidatedPush {
        guard method == "POST" else { throw APNsReason.methodNotAllowed.with(detail: "only POST is allowed, not \(method)") }
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { throw APNsReason.badPath.with(detail: "the path is not /3/device/<token>") }
        let tokenText = String(path.dropFirst(prefix.count))
        guard !tokenText.isEmpty else { throw APNsReason.missingDeviceToken.with(detail: "the path has no device token") }
        guard let token = DeviceToken(hex: tokenText) else {
            throw APNsReason.badDeviceToken.with(detail: "a device token is 64 hex digits")
        }
        var values: [String: String] = [:]
        for (name, value) in headers {
            // HTTP/2 header names arrive lowercase: lowercased only when they are not.
            let name = Self.isLowercaseASCII(name) ? name : name.lowercased()
            guard Self.knownHeaders.contains(name) else { continue }
            guard values[name] == nil else { throw APNsReason.duplicateHeaders.with(detail: "\(name) appears twice") }
            values[name] = value
        }
        let apnsID: String
        if let given = values["apns-id"] {
            guard Self.isCanonicalUUID(given) else {
                throw APNsReason.badMessageId.with(detail: "apns-id must be a UUID (8-4-4-4-12 hex digits)")
            }
            apnsID = given.lowercased()
        } else {
            apnsID = APNsID.random()
        }
        var pushType = APNsPushType.alert
        if let given = values["apns-push-type"] {
            guard let known = APNsPushType(rawValue: given) else {
                throw APNsReason.invalidPushType.with(detail: "unknown apns-push-type \(given)")
            }
            pushType = known
        }
        var priority = 10
        if let given = values["apns-priority"] {
            guard let number = Int(given), [1, 5, 10].contains(number) else {
                throw APNsReason.badPriority.with(detail: "apns-priority is 1, 5 or 10")
            }
            guard !(number == 10 && pushType == .background) else {
                throw APNsReason.badPriority.with(detail: "a background push may not have priority 10")
            }
            priority = number
        } else if pushType == .background {
            priority = 5
        }
        var expiration: Date?
        if let given = values["apns-expiration"] {
            guard let seconds = Int64(given), seconds >= 0 else {
                throw APNsReason.badExpirationDate.with(detail: "apns-expiration is UNIX seconds")
            }
            expiration = seconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        let topic = values["apns-topic"]
        if let topic, topic.isEmpty || topic.utf8.count > 255 || Self.containsWhitespace(topic) {
            throw APNsReason.badTopic.with(detail: "apns-topic is not a bundle identifier")
        }
        let collapseID = values["apns-collapse-id"]
        if let collapseID, collapseID.utf8.count > Self.collapseIdentifierLimit || collapseID.isEmpty {
            throw APNsReason.badCollapseId.with(detail: "apns-collapse-id has 1 to 64 bytes")
        }
        let payload = try APNsPayload.parse(body, pushType: pushType)
        return ValidatedPush(
            token: token, apnsID: apnsID, pushType: pushType, priority: priority, expiration: expiration, topic: topic,
            collapseIdentifier: collapseID, payload: payload)
    }

    /// Whether a text has no uppercase letter and nothing but ASCII.
    private static func isLowercaseASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
    }

    /// Whether a text holds a whitespace character (`Character.isWhitespace`); an ASCII text is checked byte by byte,
    /// where a character is whitespace exactly when it is a tab, a line or page break, a carriage return or a space.
    private static func containsWhitespace(_ text: String) -> Bool {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.contains(where: \.isWhitespace) }
        return text.utf8.contains { ($0 >= 0x09 && $0 <= 0x0D) || $0 == 0x20 }
    }

    /// Whether a text is a UUID in 8-4-4-4-12 hex digits.
    static func isCanonicalUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) } }
    }
}
