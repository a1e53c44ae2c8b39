import Foundation
import NotificationModel

/// How long the Delivered page's Snooze puts a notification away: 10 minutes, an hour, or until 09:00 tomorrow in
/// the daemon's zone. Snoozing adds a pending request with the same content under ``identifier(snoozing:)``, owned
/// by the engine like any other, and removes the delivered one.
///
/// ```swift
/// let choice = try SnoozeChoice(parsing: "tomorrow")
/// let trigger = choice.trigger(at: clock.now, calendar: clock.calendar)   // 09:00 tomorrow, floating
/// ```
enum SnoozeChoice: String, CaseIterable, Sendable {
    case tenMinutes = "10min"
    case oneHour = "1h"
    case tomorrow

    /// Parses a form's `for` field.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/badRequest``) for anything but the three choices.
    init(parsing text: String) throws(WebCenterError) {
        guard let choice = SnoozeChoice(rawValue: text) else {
            let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw WebCenterError(.badRequest, "unknown snooze '\(text)' (one of: \(names))")
        }
        self = choice
    }

    /// The button's title.
    var label: String {
        switch self {
        case .tenMinutes: "10 min"
        case .oneHour: "1 h"
        case .tomorrow: "tomorrow 9:00"
        }
    }

    /// The trigger of the snoozed request, added at `now`: a time interval, or, for ``tomorrow``, a calendar trigger
    /// for 09:00 on the day after `now` in `calendar`'s zone without a zone of its own (floating: it follows the
    /// system zone, as a person's "tomorrow morning" does).
    func trigger(at now: Date, calendar: Calendar) -> TriggerSpec {
        switch self {
        case .tenMinutes: return .timeInterval(600, repeats: false)
        case .oneHour: return .timeInterval(3_600, repeats: false)
        case .tomorrow:
            let today = calendar.startOfDay(for: now)
            let next = calendar.date(byAdding: .day, value: 1, to: today) ?? today.addingTimeInterval(86_400)
            var components = CalendarComponents()
            let day = calendar.dateComponents([.year, .month, .day], from: next)
            components.year = day.year
            components.month = day.month
            components.day = day.day
            components.hour = 9
            components.minute = 0
            components.second = 0
            return .calendar(components, repeats: false, matching: .apple)
        }
    }

    /// The snoozed request's identifier: `<id>.snoozed`; a notification snoozed before keeps its identifier, so
    /// snoozing again replaces rather than piles up.
    static func identifier(snoozing identifier: String) -> String {
        identifier.hasSuffix(".snoozed") ? identifier : identifier + ".snoozed"
    }
}
