import Foundation
import NotificationModel

/// One notification for one device, as the APNs provider API takes it: the device token in the path, the
/// `apns-*` headers, and the JSON payload.
///
/// ```swift
/// let notification = APNsNotification(
///     deviceToken: "9f2c…",                        // the hex token the app registered
///     topic: "com.example.app",
///     payload: Data(#"{"aps":{"alert":{"title":"Hi","body":"Lunch?"}}}"#.utf8))
/// ```
///
/// ``APNsClient/send(_:)`` checks it before anything goes on the wire (``validate()``): the token's digits, the
/// topic, the collapse identifier's 64 bytes, and the payload's size (4096 bytes, 5120 for VoIP) and shape.
public struct APNsNotification: Sendable, Hashable {
    /// `apns-priority`: how urgently APNs delivers.
    public enum Priority: Int, Sendable, Hashable, CaseIterable {
        /// 10: at once. Alerts, sounds and badges only; never for a background push.
        case immediate = 10
        /// 5: when the device's power allows; notifications may be grouped.
        case considerate = 5
        /// 1: power first; APNs may hold and group it.
        case low = 1
    }

    /// The device token as hex digits (either case; sent lowercase).
    public var deviceToken: String
    /// `apns-topic`: the app's bundle identifier, with the push type's suffix where Apple asks for one
    /// (`.voip`, `.complication`, …). Token authentication requires it.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// `apns-priority`; `nil` leaves the header out (APNs then uses 10, or 5 for a background push).
    public var priority: Priority?
    /// `apns-expiration`: until when APNs keeps trying; `nil` leaves the header out, and a date at or before
    /// 1970 sends 0, "deliver now or never".
    public var expiration: Date?
    /// `apns-collapse-id`: notifications with the same one replace each other on the device (at most 64 bytes).
    public var collapseID: String?
    /// `apns-id`: the notification's identity, which APNs echoes. ``APNsClient/send(_:)`` generates one when this
    /// is `nil`, and sends the same one on every retry.
    public var apnsID: UUID?
    /// The JSON payload: an object with an `aps` dictionary and the app's own keys.
    public var payload: Data

    /// Creates a notification.
    ///
    /// - Parameters:
    ///   - deviceToken: The device token as hex digits.
    ///   - topic: The app's bundle identifier (with the push type's suffix where needed).
    ///   - pushType: The kind of push; `.alert` unless given.
    ///   - priority: The priority; `nil` leaves the header out.
    ///   - expiration: Until when APNs keeps trying; `nil` leaves the header out.
    ///   - collapseID: The collapse identifier, if any.
    ///   - apnsID: The notification's UUID; generated when `nil`.
    ///   - payload: The JSON payload.
    public init(
        deviceToken: String, topic: String, pushType: APNsPushType = .alert, priority: Priority? = nil,
        expiration: Date? = nil, collapseID: String? = nil, apnsID: UUID? = nil, payload: Data
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// Creates a notification for a device token of this package's own registry (``DeviceToken``).
    public init(
        deviceToken: DeviceToken, topic: String, pushType: APNsPushType = .alert, priority: Priority? = nil,
        expiration: Date? = nil, collapseID: String? = nil, apnsID: UUID? = nil, payload: Data
    ) {
        self.init(
            deviceToken: deviceToken.hex, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, payload: payload)
    }

    /// The longest `apns-collapse-id`, in bytes.
    public static let collapseIDLimit = 64

    /// Checks what APNs would refuse, before sending.
    ///
    /// - Throws: ``APNsClientError`` with ``APNsClientError/Code/payloadTooLarge`` when the payload is over
    ///   ``NotificationModel/APNsPushType/payloadLimit`` (4096 bytes, 5120 for VoIP),
    ///   ``APNsClientError/Code/invalidPayload`` when it is not a JSON object, and the `invalid…` codes for the
    ///   token, the topic and the collapse identifier.
    public func validate() throws(APNsClientError) {
        let digits = deviceToken.utf8
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 400,
            digits.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
        else {
            throw APNsClientError(
                .invalidDeviceToken, "the device token is not an even number of hex digits: \(deviceToken.prefix(80))")
        }
        guard !topic.isEmpty, topic.utf8.count <= 255, !topic.contains(where: \.isWhitespace) else {
            throw APNsClientError(.invalidTopic, "the topic \"\(topic.prefix(80))\" is not a bundle identifier")
        }
        if let collapseID, collapseID.isEmpty || collapseID.utf8.count > Self.collapseIDLimit {
            throw APNsClientError(
                .invalidCollapseID,
                "the collapse identifier has \(collapseID.utf8.count) bytes; APNs takes 1 to \(Self.collapseIDLimit)")
        }
        let limit = pushType.payloadLimit
        guard payload.count <= limit else {
            throw APNsClientError(
                .payloadTooLarge,
                "the payload has \(payload.count) bytes; APNs takes at most \(limit) for a \(pushType.rawValue) push")
        }
        guard (try? JSONSerialization.jsonObject(with: payload)) is [String: Any] else {
            throw APNsClientError(.invalidPayload, "the payload is not a JSON object")
        }
    }

    /// The `apns-*` headers for this notification, with its `apns-id`.
    func headers(apnsID: UUID) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-id", apnsID.uuidString.lowercased()), ("apns-topic", topic), ("apns-push-type", pushType.rawValue),
        ]
        if let priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration {
            let seconds = max(0, Int64(expiration.timeIntervalSince1970.rounded(.down)))
            headers.append(("apns-expiration", String(seconds)))
        }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }
}
