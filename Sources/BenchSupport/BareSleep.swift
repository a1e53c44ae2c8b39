import Foundation
import NotificationEngine

/// The lateness baseline of the delivery figures: sleeps to `offsets` (seconds after a start 1 s from now) one after
/// another on the engine's real clock, as the engine's loop would with nothing else to do, and returns how late each
/// wake-up was, in seconds.
///
/// ```swift
/// let baseline = Percentiles(try await bareSleepLateness(offsets: offsets))
/// ```
public func bareSleepLateness(offsets: [Double]) async throws -> [Double] {
    let clock = SystemNotificationClock()
    let start = Date().addingTimeInterval(1)
    var lateness: [Double] = []
    for offset in offsets {
        let target = start.addingTimeInterval(offset)
        try await clock.sleep(until: target)
        lateness.append(Date().timeIntervalSince(target))
    }
    return lateness
}
