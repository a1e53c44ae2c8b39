import Foundation
import NotificationModel

/// When a push is sent (docs/push-service.md).
///
/// ```swift
/// var nine = CalendarComponents()
/// (nine.year, nine.month, nine.day, nine.hour, nine.minute) = (2026, 11, 27, 9, 0)
/// let time = PushSendTime.localTime(nine)   // 9:00 on 27 November wherever each device is
/// ```
public enum PushSendTime: Sendable, Hashable {
    /// As soon as a worker fans it out.
    case now
    /// At this instant (fanned out when it comes).
    case at(Date)
    /// At this wall-clock time (year, month, day, hour and minute, no zone) in each device's own zone. Fanned out
    /// when the first zone on Earth (UTC+14) reaches it; a device whose zone is past it by then gets it at once.
    case localTime(CalendarComponents)

    /// The earliest offset from UTC of any zone (Pacific/Kiritimati, UTC+14), in seconds.
    static let earliestOffset: TimeInterval = 14 * 3600

    /// The instant a worker may start fanning out: at once, the instant, or the local time read in UTC+14.
    func readyAt(createdAt: Date) -> Date {
        switch self {
        case .now: return createdAt
        case .at(let date): return date
        case .localTime(let components):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            var wall = components.dateComponents
            wall.timeZone = nil
            let asUTC = calendar.date(from: wall) ?? createdAt
            return asUTC.addingTimeInterval(-Self.earliestOffset)
        }
    }
}
