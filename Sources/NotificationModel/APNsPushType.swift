/// The `apns-push-type` header: what kind of push a request carries.
public enum APNsPushType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A notification shown to the person (the default).
    case alert
    /// Content for the app, not shown (`content-available` only).
    case background
    /// A location query.
    case location
    /// A VoIP call (PushKit); payloads up to 5120 bytes.
    case voip
    /// A watch complication update.
    case complication
    /// A File Provider change.
    case fileprovider
    /// A device-management wake-up.
    case mdm
    /// A Live Activity update.
    case liveactivity
    /// A Push to Talk update.
    case pushtotalk
    /// A widget reload.
    case widgets

    /// The largest payload APNs accepts for this type, in bytes: 5120 for VoIP, 4096 otherwise.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }
}
