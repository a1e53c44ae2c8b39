/// Who a push goes to (docs/push-service.md): listed devices, an account's devices, an alias's devices, the devices
/// whose tags match an expression, or every device. Only active devices are reached.
///
/// ```swift
/// let target = PushTarget.tag(try TagExpression(json: ["or": [["tag": "news"], ["tag": "sports"]]]))
/// ```
public enum PushTarget: Sendable, Hashable {
    /// These devices (at most ``maximumDevices``; unknown and inactive ones are not reached).
    case devices([String])
    /// The devices bound to this account.
    case account(String)
    /// The devices with this alias.
    case alias(String)
    /// The devices whose tags match.
    case tag(TagExpression)
    /// Every active device.
    case all

    /// The most device identifiers one push lists.
    public static let maximumDevices = 1_000

    /// The kind's name as stored and as the HTTP API spells it: `devices`, `account`, `alias`, `tag`, `all`.
    public var kind: String {
        switch self {
        case .devices: "devices"
        case .account: "account"
        case .alias: "alias"
        case .tag: "tag"
        case .all: "all"
        }
    }
}
