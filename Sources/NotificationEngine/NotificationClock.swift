import Foundation

/// Where the engine reads time: the current instant, the system time zone, and a way to sleep until an instant.
///
/// The engine never calls `Date()` or `Task.sleep` itself, so tests drive it with a manual clock
/// (`ManualNotificationClock` in `OpenUserNotificationsTesting`) and stay deterministic.
public protocol NotificationClock: Sendable {
    /// The current instant.
    var now: Date { get }
    /// The system time zone, which floating calendar triggers follow.
    var timeZone: TimeZone { get }
    /// Suspends until `now` has reached `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Date) async throws
}

extension NotificationClock {
    /// A Gregorian calendar in the clock's current zone: the calendar triggers are matched against.
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}

/// The real clock: wall time from the system and `TZ`/`/etc/localtime` for the zone.
public struct SystemNotificationClock: NotificationClock {
    private let zone: @Sendable () -> TimeZone

    /// Creates the clock.
    /// - Parameter timeZone: Where the system zone comes from: Foundation's by default; the daemon passes the zone
    ///   its monitor of `/etc/localtime` last reported.
    public init(timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }) {
        zone = timeZone
    }

    public var now: Date { Date() }

    public var timeZone: TimeZone { zone() }

    /// Sleeps on the concurrency pool's timer; within the delivery loop (``NotificationScheduler/run()``), on the
    /// loop's own thread, which the kernel wakes at the deadline without a hop through the pool (`LoopExecutor`).
    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        guard interval > 0 else { return }
        if let loop = LoopExecutor.current {
            try await loop.sleep(until: .now() + interval)
        } else {
            try await Task.sleep(for: .seconds(interval))
        }
    }
}
