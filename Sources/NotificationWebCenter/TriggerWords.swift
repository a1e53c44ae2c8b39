import Foundation
import NotificationModel

/// A trigger said in words, as the Scheduled page shows it: "in 5 min, once", "every 1 h", "every day at 08:30",
/// "when entering or leaving home (200 m around 48.85, 2.35)".
enum TriggerWords {
    /// The trigger in words; `nil` (no trigger) is "at once".
    static func describe(_ trigger: TriggerSpec?) -> String {
        switch trigger {
        case nil: return "at once"
        case .timeInterval(let seconds, let repeats):
            return repeats ? "every \(duration(seconds))" : "\(duration(seconds)) after it was added, once"
        case .calendar(let components, let repeats, _):
            return (repeats ? "every " : "once, on the next ") + calendar(components)
        case .location(let region, let repeats):
            let crossing =
                switch (region.notifyOnEntry, region.notifyOnExit) {
                case (true, true): "entering or leaving"
                case (true, false): "entering"
                case (false, true): "leaving"
                case (false, false): "never crossing"
                }
            let place = String(format: "%.0f m around %.5f, %.5f", region.radius, region.latitude, region.longitude)
            return "when \(crossing) \(region.identifier) (\(place))" + (repeats ? ", every time" : ", once")
        case .push: return "a remote notification"
        }
    }

    /// `90` is "1 min 30 s", `7200` is "2 h".
    static func duration(_ seconds: TimeInterval) -> String {
        var rest = Int(seconds.rounded())
        var parts: [String] = []
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("min", 60), ("s", 1)] where rest >= size {
            parts.append("\(rest / size) \(unit)")
            rest %= size
        }
        return parts.isEmpty ? String(format: "%.3g s", seconds) : parts.joined(separator: " ")
    }

    /// Calendar components as a phrase: "day at 08:30", "Monday at 09:00", "15th of the month at 12:00".
    static func calendar(_ components: CalendarComponents) -> String {
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        var phrase: String
        if let weekday = components.weekday, (1...7).contains(weekday) {
            phrase = weekdays[weekday - 1]
        } else if let day = components.day {
            if let month = components.month, (1...12).contains(month) {
                phrase = "\(months[month - 1]) \(day)"
            } else {
                phrase = "\(ordinal(day)) of the month"
            }
        } else if let month = components.month, (1...12).contains(month) {
            phrase = "day in \(months[month - 1])"
        } else if components.hour != nil {
            phrase = "day"
        } else if components.minute != nil {
            phrase = "hour"
        } else {
            phrase = "minute"
        }
        if let year = components.year { phrase += " \(year)" }
        switch (components.hour, components.minute) {
        case (let hour?, let minute):
            phrase += String(format: " at %02d:%02d", hour, minute ?? 0)
        case (nil, let minute?):
            phrase += String(format: " at minute %d", minute)
        case (nil, nil):
            break
        }
        if let second = components.second, second != 0 { phrase += String(format: ":%02d", second) }
        if let zone = components.timeZoneIdentifier { phrase += " (\(zone))" }
        return phrase
    }

    private static func ordinal(_ number: Int) -> String {
        let suffix =
            switch (number % 10, number % 100) {
            case (1, let t) where t != 11: "st"
            case (2, let t) where t != 12: "nd"
            case (3, let t) where t != 13: "rd"
            default: "th"
            }
        return "\(number)\(suffix)"
    }
}
