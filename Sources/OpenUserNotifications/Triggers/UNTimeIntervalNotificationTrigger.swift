import Foundation
import NotificationModel

/// Fires a given number of seconds after the request is added, and again every interval when it repeats.
///
/// ```swift
/// // Two minutes from now:
/// let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 120, repeats: false)
/// ```
///
/// > Note: Apple's initializer traps when the interval is not above 0, or below 60 for a repeating trigger. Here
/// > the initializer accepts any value and `add` fails with a ``NotificationRequestError`` of kind
/// > `invalidTrigger` instead, so bad input never crashes the app.
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The interval given at creation (not a countdown).
    public let timeInterval: TimeInterval

    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }

    /// Decodes a trigger archived with ``UNNotificationTrigger/encode(with:)``.
    public required init?(coder: NSCoder) {
        guard case .timeInterval(let interval, _)? = coder.decodeSpec(TriggerSpec.self, forKey: "trigger") else { return nil }
        timeInterval = interval
        super.init(coder: coder)
    }

    package override var spec: TriggerSpec { .timeInterval(timeInterval, repeats: repeats) }

    /// The next fire date: the planned one for a pending request, otherwise now plus the interval.
    open func nextTriggerDate() -> Date? {
        plannedFireDate ?? Date().addingTimeInterval(timeInterval)
    }
}
