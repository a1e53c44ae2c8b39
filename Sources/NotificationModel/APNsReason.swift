import Foundation

/// Why APNs refused a notification request: one reason string of Apple's table, with its HTTP status.
///
/// The push gateway answers every error with the JSON body ``responseBody`` (`{"reason": "…"}`, plus
/// `"timestamp"` in milliseconds since 1970 for ``unregistered``), exactly as APNs does. The parser and the token
/// registry throw these values, so whatever goes wrong while taking a push in is already an APNs answer.
///
/// ```swift
/// do {
///     let payload = try APNsPayload.parse(body)
/// } catch let reason as APNsReason {
///     respond(status: reason.status, body: reason.responseBody)
/// }
/// ```
public struct APNsReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason string, such as `PayloadTooLarge`.
    public let reason: String
    /// The HTTP status APNs answers with, such as 413.
    public let status: Int
    /// When APNs last knew the device token was valid; set for ``unregistered`` only.
    public var timestamp: Date?
    /// A sentence for logs and the command line; never sent to the provider.
    public var detail: String

    private init(_ reason: String, _ status: Int) {
        self.reason = reason
        self.status = status
        self.detail = ""
    }

    /// The same reason with a sentence for logs.
    public func with(detail: String) -> APNsReason {
        var copy = self
        copy.detail = detail
        return copy
    }

    /// The same reason with the 410 timestamp.
    public func with(timestamp: Date) -> APNsReason {
        var copy = self
        copy.timestamp = timestamp
        return copy
    }

    /// The timestamp as APNs writes it: milliseconds since 1970.
    public var timestampMilliseconds: Int64? {
        timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
    }

    /// The JSON body APNs answers with: `{"reason":"…"}` or `{"reason":"Unregistered","timestamp":…}`.
    public var responseBody: Data {
        var text = "{\"reason\":\"\(reason)\""
        if let milliseconds = timestampMilliseconds { text += ",\"timestamp\":\(milliseconds)" }
        text += "}"
        return Data(text.utf8)
    }

    public var description: String {
        "\(status) \(reason)" + (detail.isEmpty ? "" : ": \(detail)")
    }

    /// Equal when the reason strings are; the detail and timestamp do not count.
    public static func == (lhs: APNsReason, rhs: APNsReason) -> Bool { lhs.reason == rhs.reason }

    /// Hashes the reason string.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }

    // MARK: 400

    /// The collapse identifier exceeds 64 bytes.
    public static let badCollapseId = APNsReason("BadCollapseId", 400)
    /// The device token is invalid, or was never issued.
    public static let badDeviceToken = APNsReason("BadDeviceToken", 400)
    /// The `apns-expiration` value is invalid.
    public static let badExpirationDate = APNsReason("BadExpirationDate", 400)
    /// The `apns-id` value is not a canonical UUID.
    public static let badMessageId = APNsReason("BadMessageId", 400)
    /// The `apns-priority` value is not 1, 5 or 10.
    public static let badPriority = APNsReason("BadPriority", 400)
    /// The `apns-topic` is invalid.
    public static let badTopic = APNsReason("BadTopic", 400)
    /// The device token does not match the topic.
    public static let deviceTokenNotForTopic = APNsReason("DeviceTokenNotForTopic", 400)
    /// A header was given more than once.
    public static let duplicateHeaders = APNsReason("DuplicateHeaders", 400)
    /// Idle timeout.
    public static let idleTimeout = APNsReason("IdleTimeout", 400)
    /// The `apns-push-type` value is invalid.
    public static let invalidPushType = APNsReason("InvalidPushType", 400)
    /// No device token in the request path.
    public static let missingDeviceToken = APNsReason("MissingDeviceToken", 400)
    /// No `apns-topic` where one is required.
    public static let missingTopic = APNsReason("MissingTopic", 400)
    /// The message payload is empty (ours also: not a JSON object with an `aps` dictionary).
    public static let payloadEmpty = APNsReason("PayloadEmpty", 400)
    /// Pushing to this topic is not allowed.
    public static let topicDisallowed = APNsReason("TopicDisallowed", 400)

    // MARK: 403

    /// The certificate is invalid.
    public static let badCertificate = APNsReason("BadCertificate", 403)
    /// The client certificate is for the wrong environment.
    public static let badCertificateEnvironment = APNsReason("BadCertificateEnvironment", 403)
    /// The provider token is stale.
    public static let expiredProviderToken = APNsReason("ExpiredProviderToken", 403)
    /// The action is not allowed.
    public static let forbidden = APNsReason("Forbidden", 403)
    /// The provider token is not valid, or its signature could not be verified.
    public static let invalidProviderToken = APNsReason("InvalidProviderToken", 403)
    /// No provider certificate or token.
    public static let missingProviderToken = APNsReason("MissingProviderToken", 403)
    /// The key identifier in the provider token is unrelated to the developer account.
    public static let unrelatedKeyIdInToken = APNsReason("UnrelatedKeyIdInToken", 403)
    /// The key identifier in the provider token does not match the environment.
    public static let badEnvironmentKeyIdInToken = APNsReason("BadEnvironmentKeyIdInToken", 403)

    // MARK: 404, 405, 410, 413, 429, 500, 503

    /// The request path is not `/3/device/<token>`.
    public static let badPath = APNsReason("BadPath", 404)
    /// The method is not POST.
    public static let methodNotAllowed = APNsReason("MethodNotAllowed", 405)
    /// The device token has expired.
    public static let expiredToken = APNsReason("ExpiredToken", 410)
    /// The device token is no longer active for the topic; the response carries ``timestamp``.
    public static let unregistered = APNsReason("Unregistered", 410)
    /// The payload is larger than 4096 bytes (5120 for VoIP).
    public static let payloadTooLarge = APNsReason("PayloadTooLarge", 413)
    /// The provider token was updated too often.
    public static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates", 429)
    /// Too many requests to the same device token.
    public static let tooManyRequests = APNsReason("TooManyRequests", 429)
    /// An internal server error.
    public static let internalServerError = APNsReason("InternalServerError", 500)
    /// The service is unavailable.
    public static let serviceUnavailable = APNsReason("ServiceUnavailable", 503)
    /// The APNs server is shutting down.
    public static let shutdown = APNsReason("Shutdown", 503)

    /// Every reason of Apple's table.
    public static let allReasons: [APNsReason] = [
        badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic, deviceTokenNotForTopic,
        duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken, missingTopic, payloadEmpty, topicDisallowed,
        badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken,
        missingProviderToken, unrelatedKeyIdInToken, badEnvironmentKeyIdInToken, badPath, methodNotAllowed,
        expiredToken, unregistered, payloadTooLarge, tooManyProviderTokenUpdates, tooManyRequests, internalServerError,
        serviceUnavailable, shutdown,
    ]

    /// The reason with this string, as Apple spells it.
    public init?(reason: String) {
        guard let known = Self.allReasons.first(where: { $0.reason == reason }) else { return nil }
        self = known
    }
}
