import Foundation

/// A notification request as an app hands it over: identifier, content, trigger and missed-fire policy.
public struct RequestSpec: Sendable, Hashable, Codable {
    public var identifier: String
    public var content: NotificationPayload
    /// `nil` delivers at once.
    public var trigger: TriggerSpec?
    public var missedFirePolicy: MissedFirePolicy
    /// APNs headers for a server-mode worker sending it to a device; `nil` (always, for local requests) lets the
    /// worker choose.
    public var apns: APNsOptions?

    public init(
        identifier: String, content: NotificationPayload, trigger: TriggerSpec?,
        missedFirePolicy: MissedFirePolicy = .deliver, apns: APNsOptions? = nil
    ) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        self.missedFirePolicy = missedFirePolicy
        self.apns = apns
    }
}

/// A request the engine has accepted and not yet finished with.
public struct PendingRequest: Sendable, Hashable, Codable {
    /// The bundle identifier of the app that added it.
    public var appID: String
    public var spec: RequestSpec
    /// When `add` accepted it; time-interval triggers count from here.
    public var addedAt: Date
    /// The next instant it fires; `nil` for triggers without a date (location).
    public var nextFireDate: Date?
    /// A number that changes whenever the request is replaced, so a delivery racing a replacement is noticed.
    public var revision: Int64

    public init(appID: String, spec: RequestSpec, addedAt: Date, nextFireDate: Date?, revision: Int64 = 0) {
        self.appID = appID
        self.spec = spec
        self.addedAt = addedAt
        self.nextFireDate = nextFireDate
        self.revision = revision
    }

    public var identifier: String { spec.identifier }

    /// Whether the fire date follows the system zone and must be re-planned when the zone changes.
    public var isFloating: Bool {
        if case .calendar(let components, _, _) = spec.trigger { return components.isFloating }
        return false
    }
}
