import Foundation
import NotificationModel

/// A provider request that passed ``APNsRequest/validate()``: the device token, the headers typed, the payload
/// parsed.
public struct ValidatedPush: Sendable, Hashable {
    /// The device token from the path.
    public var token: DeviceToken
    /// The `apns-id`, lowercase; generated when the request had none.
    public var apnsID: String
    /// The `apns-push-type`; `alert` when absent.
    public var pushType: APNsPushType
    /// The `apns-priority`: 10 by default, 5 for background pushes.
    public var priority: Int
    /// The `apns-expiration`; `nil` for 0 or absent.
    public var expiration: Date?
    /// The `apns-topic`, if any.
    public var topic: String?
    /// The `apns-collapse-id`, if any.
    public var collapseIdentifier: String?
    /// The parsed payload.
    public var payload: APNsPayload

    /// Creates a validated push.
    public init(
        token: DeviceToken, apnsID: String, pushType: APNsPushType, priority: Int, expiration: Date?, topic: String?,
        collapseIdentifier: String?, payload: APNsPayload
    ) {
        self.token = token
        self.apnsID = apnsID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.topic = topic
        self.collapseIdentifier = collapseIdentifier
        self.payload = payload
    }

    /// The topic suffix APNs expects for the push type (`.voip`, `.complication`, …), or `""`.
    public var topicSuffix: String {
        switch pushType {
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .location: ".location-query"
        case .widgets: ".push-type.widgets"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .alert, .background, .mdm: ""
        }
    }

    /// Whether the topic names `appID`, with the push type's suffix when it has one; an absent topic matches.
    public func topicMatches(appID: String) -> Bool {
        guard let topic else { return true }
        return topic == appID || topic == appID + topicSuffix
    }
}
