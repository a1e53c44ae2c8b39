import Foundation
import NotificationModel

/// What makes a notification fire. Use one of the subclasses.
open class UNNotificationTrigger: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// Whether the trigger fires again after firing.
    public let repeats: Bool

    /// The planned fire date when the trigger came back from the engine in a pending request.
    var plannedFireDate: Date?

    init(repeats: Bool) {
        self.repeats = repeats
    }

    /// Triggers archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes a trigger archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(TriggerSpec.self, forKey: "trigger") else { return nil }
        repeats = spec.repeats
        plannedFireDate = coder.decodeDate(forKey: "plannedFireDate")
    }

    /// Archives the trigger.
    open func encode(with coder: NSCoder) {
        coder.encodeSpec(spec, forKey: "trigger")
        if let plannedFireDate { coder.encode(plannedFireDate as NSDate, forKey: "plannedFireDate") }
    }

    /// The engine's form of the trigger.
    package var spec: TriggerSpec { .push }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationTrigger else { return false }
        return type(of: other) == type(of: self) && other.spec == spec
    }

    open override var hash: Int { spec.hashValue }

    /// Rebuilds a trigger from the engine's form.
    package static func make(_ spec: TriggerSpec, plannedFireDate: Date? = nil) -> UNNotificationTrigger {
        let trigger: UNNotificationTrigger
        switch spec {
        case .timeInterval(let interval, let repeats):
            trigger = UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats)
        case .calendar(let components, let repeats, let matching):
            trigger = UNCalendarNotificationTrigger(dateMatching: components.dateComponents, repeats: repeats, matching: matching)
        case .location(let region, let repeats):
            let circular = CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: region.latitude, longitude: region.longitude),
                radius: region.radius, identifier: region.identifier)
            circular.notifyOnEntry = region.notifyOnEntry
            circular.notifyOnExit = region.notifyOnExit
            trigger = UNLocationNotificationTrigger(region: circular, repeats: repeats)
        case .push:
            trigger = UNPushNotificationTrigger(repeats: false)
        }
        trigger.plannedFireDate = plannedFireDate
        return trigger
    }
}

/// The trigger of a notification that came from a remote push. The system creates it; apps do not.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {}
