import Foundation
import NotificationModel

/// What to do with a fire that was missed while nothing could deliver it. An addition of this library.
public typealias MissedFirePolicy = NotificationModel.MissedFirePolicy

/// A request to deliver a notification: an identifier, the content, and the trigger that fires it.
///
/// ```swift
/// let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
/// let request = UNNotificationRequest(identifier: "tea", content: content, trigger: trigger)
/// try await UNUserNotificationCenter.current().add(request)
/// ```
open class UNNotificationRequest: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// Identifies the request; adding another with the same identifier replaces it.
    public let identifier: String
    /// The content, copied at creation.
    public let content: UNNotificationContent
    /// The trigger; `nil` delivers at once.
    public let trigger: UNNotificationTrigger?

    var _missedFirePolicy: MissedFirePolicy = .deliver

    /// Creates a request.
    public convenience init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.init(identifier: identifier, content: content, trigger: trigger, copyContent: true)
    }

    init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?, copyContent: Bool) {
        self.identifier = identifier
        self.content = copyContent ? (content.copy() as! UNNotificationContent) : content
        self.trigger = trigger
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Requests archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes a request archived with ``encode(with:)``.
    public required convenience init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(RequestSpec.self, forKey: "request") else { return nil }
        self.init(spec: spec, plannedFireDate: coder.decodeDate(forKey: "plannedFireDate"))
    }

    /// Archives the request; one whose `userInfo` is not a property list does not archive.
    open func encode(with coder: NSCoder) {
        guard let spec = try? spec() else { return }
        coder.encodeSpec(spec, forKey: "request")
        if let date = trigger?.plannedFireDate { coder.encode(date as NSDate, forKey: "plannedFireDate") }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationRequest else { return false }
        return other.identifier == identifier && other.content.isEqual(content) && other.trigger == trigger
            && other._missedFirePolicy == _missedFirePolicy
    }

    open override var hash: Int { identifier.hashValue }

    open override var description: String {
        "<UNNotificationRequest identifier: \(identifier), content: \(content), trigger: \(trigger.map { "\($0)" } ?? "nil")>"
    }
}

extension UNNotificationRequest {
    /// What happens when this request's fire is missed (the machine was off or asleep, the clock jumped):
    /// deliver it late once (the default), only when at most some seconds late, or skip it.
    ///
    /// A repeating request is delivered at most once for all the periods it missed, whatever the policy.
    ///
    /// ```swift
    /// let request = UNNotificationRequest(identifier: "standup", content: content, trigger: trigger)
    /// request.missedFirePolicy = .deliverIfWithin(15 * 60)
    /// ```
    /// An addition of this library; Apple's framework has no such setting.
    public var missedFirePolicy: MissedFirePolicy {
        get { _missedFirePolicy }
        set { _missedFirePolicy = newValue }
    }

    /// The checked snapshot the engine keeps.
    package func spec() throws -> RequestSpec {
        RequestSpec(
            identifier: identifier, content: try content.payload(), trigger: trigger?.spec,
            missedFirePolicy: _missedFirePolicy)
    }

    /// Rebuilds a request from the engine's snapshot.
    package convenience init(spec: RequestSpec, plannedFireDate: Date? = nil) {
        self.init(
            identifier: spec.identifier, content: UNNotificationContent(payload: spec.content),
            trigger: spec.trigger.map { UNNotificationTrigger.make($0, plannedFireDate: plannedFireDate) },
            copyContent: false)
        _missedFirePolicy = spec.missedFirePolicy
    }
}
