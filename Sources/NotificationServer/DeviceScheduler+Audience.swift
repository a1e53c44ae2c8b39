import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres

extension DeviceScheduler {
    /// What ``schedule(_:for:)`` did: how many devices the request was scheduled for, and why not for the others.
    public struct AudienceScheduling {
        /// How many devices the request was scheduled for.
        public var scheduled: Int
        /// The devices it could not be scheduled for, with why (a device deactivated while the audience was read,
        /// a trigger no date matches in the device's zone, a store failure of one transaction).
        public var failures: [String: any Error]

        /// Creates a report.
        public init(scheduled: Int, failures: [String: any Error]) {
            self.scheduled = scheduled
            self.failures = failures
        }
    }

    /// Schedules one request for every device a target reaches -- an account's devices, an alias's, the devices whose
    /// tags match an expression, every device -- each planned in its own zone, with the semantics of
    /// ``schedule(_:forDevice:)`` for each.
    ///
    /// The audience is read when the call runs, a page of ``AudienceLimits/devicesPerPage`` devices at a time, and
    /// each page is scheduled as one batch (``schedule(_:)``): a device that joins the audience later does not get the
    /// request (a push does, since it fans out when it is sent; see docs/push-service.md). Only active devices are
    /// reached; a ``PushTarget/devices(_:)`` list goes through ``schedule(_:forDevices:)`` instead, so its unknown and
    /// inactive devices are reported as failures rather than left out.
    ///
    /// Scheduling the same request again replaces it device by device (the identifier is the same), so a call that
    /// failed part-way can be repeated.
    ///
    /// ```swift
    /// var nine = CalendarComponents()
    /// (nine.weekday, nine.hour) = (2, 9)
    /// let report = try await devices.schedule(
    ///     RequestSpec(identifier: "monday-news", content: content, trigger: .calendar(nine, repeats: true, matching: .apple)),
    ///     for: .tag(try TagExpression(json: ["tag": "news"])))  // Mondays at 9:00 where each reader is
    /// print("scheduled for \(report.scheduled) devices")
    /// ```
    ///
    /// - Returns: How many devices it was scheduled for, and the failures by device.
    /// - Throws: `EngineError` when the request itself is refused (an invalid trigger or content, or calendar
    ///   components no date matches in any zone: nothing is scheduled); the store's error when reading a page of the audience fails (the pages before it stay scheduled).
    public func schedule(_ spec: RequestSpec, for target: PushTarget) async throws -> AudienceScheduling {
        try checkForAnyZone(spec)
        if case .devices(let ids) = target {
            let unique = Array(Set(ids))
            let failures = await schedule(spec, forDevices: unique)
            return AudienceScheduling(scheduled: unique.count - failures.count, failures: failures)
        }
        var report = AudienceScheduling(scheduled: 0, failures: [:])
        var after: String?
        while true {
            let page = try await store.deviceIDs(reachedBy: target, after: after)
            guard let last = page.last else { break }
            let failures = await schedule(spec, forDevices: page)
            report.scheduled += page.count - failures.count
            report.failures.merge(failures) { first, _ in first }
            after = last
        }
        return report
    }

    /// Refuses a request no device could take, whatever its zone: the engine's checks, and a first fire date.
    ///
    /// Floating components are tried as a wall-clock time in UTC from 26 hours before now: a zone is at most 14 hours
    /// ahead of UTC and 12 behind (plus an hour of DST), so components with no such date fire in no zone (`hour: 25`,
    /// a date long past), while a date still to come somewhere passes, and the devices where it has passed fail one
    /// by one.
    private func checkForAnyZone(_ spec: RequestSpec) throws {
        let now = scheduler.clock.now
        if Self.isFloating(spec) {
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            _ = try NotificationScheduler.checkedFirstFireDate(
                of: Self.pinned(spec, to: "UTC"), at: now.addingTimeInterval(-26 * 3600), calendar: utc)
        } else {
            _ = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: scheduler.clock.calendar)
        }
    }
}
