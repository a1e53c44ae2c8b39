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

    /// Within the delivery loop (``NotificationScheduler/run()``), sleeps on the loop's own thread, on a timer of the
    /// wall clock that the kernel expires when the wall clock reaches `deadline` (`LoopExecutor`): on time after a
    /// suspend of the machine or a set clock too. Elsewhere, sleeps on the concurrency pool's timer for the interval
    /// from now to `deadline`, which counts on the continuous clock: it ends off by as much as the wall clock was set
    /// meanwhile.
    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        guard interval > 0 else { return }
        if let loop = LoopExecutor.current {
            try await loop.sleep(until: deadline)
        } else {
            try await Task.sleep(for: .seconds(interval))
        }
    }
}
