import Foundation

/// Where ``UIApplication`` reads the time and the system time zone, which decide whether a fire date is past and how
/// a fire date becomes calendar components. An addition of this library.
///
/// It must agree with the clock of the engine behind the application's center: ``system`` for
/// `UIApplication.shared`; in tests, the test system's manual clock:
///
/// ```swift
/// let system = try NotificationTestSystem()
/// let clock = LegacyApplicationClock(now: { system.clock.now }, timeZone: { system.clock.timeZone })
/// let application = UIApplication(center: try await system.center(for: "com.example.app"), clock: clock)
/// ```
public struct LegacyApplicationClock: Sendable {
    /// The current instant.
    public var now: @Sendable () -> Date
    /// The system time zone.
    public var timeZone: @Sendable () -> TimeZone

    /// Creates a clock from two readers.
    ///
    /// - Parameters:
    ///   - now: Returns the current instant.
    ///   - timeZone: Returns the system time zone.
    public init(now: @escaping @Sendable () -> Date, timeZone: @escaping @Sendable () -> TimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The real clock: wall time and Foundation's current zone, as the engine's system clock reads them.
    public static let system = LegacyApplicationClock(now: { Date() }, timeZone: { TimeZone.current })

    /// A Gregorian calendar in the current zone.
    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone()
        return calendar
    }
}
