import Foundation
import NotificationEngine
import NotificationModel

/// How a calendar trigger's components are matched: Apple's behaviour or strict matching.
public typealias CalendarMatching = NotificationModel.CalendarMatching

/// Fires when the date matches the given components, for example every day at 8:00.
///
/// Only the components you give are matched. Without a time zone in the components the trigger is *floating*:
/// it follows the system zone and moves when the zone changes; with one it is a fixed instant.
///
/// ```swift
/// // Every Sunday at 8:00:
/// var components = DateComponents()
/// components.weekday = 1
/// components.hour = 8
/// let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
/// ```
open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The components to match.
    public let dateComponents: DateComponents
    /// How components are matched; ``CalendarMatching/apple`` unless created with `matching:`.
    public let matching: CalendarMatching

    public convenience init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.init(dateMatching: dateComponents, repeats: repeats, matching: .apple)
    }

    /// Creates a trigger with a chosen matching policy.
    ///
    /// `.apple` keeps Apple's behaviour (Foundation's `.nextTime`: `day: 31` in a 30-day month fires on the 1st
    /// of the next month); `.strict` skips months without that day. An addition of this library.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool, matching: CalendarMatching) {
        self.dateComponents = dateComponents
        self.matching = matching
        super.init(repeats: repeats)
    }

    /// Decodes a trigger archived with ``UNNotificationTrigger/encode(with:)``.
    public required init?(coder: NSCoder) {
        guard case .calendar(let components, _, let matching)? = coder.decodeSpec(TriggerSpec.self, forKey: "trigger")
        else { return nil }
        dateComponents = components.dateComponents
        self.matching = matching
        super.init(coder: coder)
    }

    package override var spec: TriggerSpec {
        .calendar(CalendarComponents(dateComponents), repeats: repeats, matching: matching)
    }

    /// The next date that matches the components: the planned one for a pending request, otherwise computed
    /// from now in the current zone.
    open func nextTriggerDate() -> Date? {
        if let plannedFireDate { return plannedFireDate }
        return TriggerPlanner.nextCalendarDate(
            after: Date(), matching: CalendarComponents(dateComponents), policy: matching,
            calendar: SystemNotificationClock().calendar)
    }
}
