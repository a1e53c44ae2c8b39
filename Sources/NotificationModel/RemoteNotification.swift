import Foundation

/// A push on its way to an app: the parsed payload as notification content, with what the request's headers
/// said. The engine delivers it (`NotificationScheduler.deliverPush(_:appID:deliver:)`): shown like any
/// notification, or handed to the app when it is a background push.
public struct RemoteNotification: Sendable, Hashable, Codable {
    /// The request identifier the notification gets: the `apns-collapse-id` when there is one (a later push with
    /// the same collapse identifier replaces it), otherwise the `apns-id`.
    public var identifier: String
    /// The content; its `userInfo` is the whole payload, `aps` included.
    public var content: NotificationPayload
    /// Whether it is a background push (`content-available` without alert, sound or badge): not shown.
    public var isBackground: Bool
    /// `aps.content-available` is 1: the app is woken to fetch content.
    public var contentAvailable: Bool
    /// `aps.mutable-content` is 1: the app's service extension, when it has one, may change it before it is shown.
    public var mutableContent: Bool
    /// The `apns-push-type`.
    public var pushType: APNsPushType
    /// The `apns-id` of the request.
    public var apnsID: String
    /// The `apns-collapse-id`, if any.
    public var collapseIdentifier: String?

    /// Creates a push.
    public init(
        identifier: String, content: NotificationPayload, isBackground: Bool, contentAvailable: Bool,
        mutableContent: Bool, pushType: APNsPushType = .alert, apnsID: String? = nil, collapseIdentifier: String? = nil
    ) {
        self.identifier = identifier
        self.content = content
        self.isBackground = isBackground
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.pushType = pushType
        self.apnsID = apnsID ?? identifier
        self.collapseIdentifier = collapseIdentifier
    }

    /// A push from a parsed payload.
    ///
    /// - Parameters:
    ///   - payload: The parsed payload.
    ///   - apnsID: The request's `apns-id`; a new UUID when `nil`.
    ///   - collapseIdentifier: The `apns-collapse-id`; it becomes the notification's identifier.
    ///   - pushType: The `apns-push-type`; `background` makes the push a background one whatever the payload.
    ///   - bundleDirectory: The app's folder, for `loc-key` strings and named sounds.
    public init(
        payload: APNsPayload, apnsID: String? = nil, collapseIdentifier: String? = nil, pushType: APNsPushType = .alert,
        bundleDirectory: String? = nil
    ) {
        let apnsID = apnsID ?? UUID().uuidString
        self.init(
            identifier: collapseIdentifier ?? apnsID, content: payload.content(bundleDirectory: bundleDirectory),
            isBackground: payload.isBackground || pushType == .background, contentAvailable: payload.contentAvailable,
            mutableContent: payload.mutableContent, pushType: pushType, apnsID: apnsID,
            collapseIdentifier: collapseIdentifier)
    }
}
