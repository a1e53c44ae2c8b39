import Foundation
import Logging
import NotificationLocation
import NotificationModel

// Location triggers (docs/location.md): each fix is evaluated against every pending location request; a crossing
// the region notifies on makes the request due now, and the ordinary claim/fire path delivers it, so presenters,
// `willPresent`, the history and at-least-once delivery work as for every other trigger. Location requests have
// no fire date otherwise, so the time-based loop never picks them up on its own.

extension NotificationScheduler {
    /// What one fix did to one location request.
    public struct LocationEvent: Sendable, Hashable {
        /// The app the request belongs to.
        public var appID: String
        /// The request's identifier.
        public var requestIdentifier: String
        /// The region's identifier.
        public var regionIdentifier: String
        /// Entry or exit.
        public var crossing: RegionCrossing.Kind
        /// The distance from the region's center, in metres.
        public var distance: Double
        /// Whether the region notifies on this crossing, so the request was made due.
        public var fires: Bool

        /// Creates an event.
        public init(
            appID: String, requestIdentifier: String, regionIdentifier: String, crossing: RegionCrossing.Kind,
            distance: Double, fires: Bool
        ) {
            self.appID = appID
            self.requestIdentifier = requestIdentifier
            self.regionIdentifier = regionIdentifier
            self.crossing = crossing
            self.distance = distance
            self.fires = fires
        }
    }

    /// How long the last fix is remembered to decide the starting state of a request added after it; an older fix
    /// says too little about where the device is now.
    public static let locationMemoryLifetime: TimeInterval = 3600

    /// The device moved: evaluates every pending location request (of every app, or of the delivery scope) against
    /// the fix, records each region's new state, and delivers the requests whose crossing notifies.
    ///
    /// A crossing is decided with great-circle distance and a hysteresis band (``RegionCrossing``). The first fix
    /// that decides a request's state does not fire it, unless the last fix before it, remembered in memory only,
    /// was already on the other side: a trigger added while the device is inside does not fire until the device
    /// has left and come back, as on Apple platforms. A non-repeating request fires once and leaves the pending
    /// list; a repeating one fires on every qualifying crossing.
    ///
    /// The fix is kept in memory (at most ``locationMemoryLifetime``), never in the store; the store keeps each
    /// request's inside/outside state only.
    ///
    /// - Parameters:
    ///   - fix: Where the device is. A fix that is not ``LocationFix/isUsable`` (invalid coordinates, negative or
    ///     very poor accuracy) is ignored.
    ///   - deliver: Whether to deliver the requests made due before returning (one ``deliverDue()`` pass); pass
    ///     `false` when another engine on the same store delivers (the daemon, woken by the store change).
    /// - Returns: The crossings the fix completed, whether they notify or not.
    /// - Throws: ``EngineError`` with `storeFailure` when the states cannot be read or saved.
    ///
    /// ```swift
    /// try await scheduler.locationDidChange(LocationFix(latitude: 48.8584, longitude: 2.2945, timestamp: clock.now))
    /// ```
    @discardableResult
    public func locationDidChange(_ fix: LocationFix, deliver: Bool = true) async throws -> [LocationEvent] {
        guard fix.isUsable else {
            logger.debug("ignored an unusable location fix", metadata: ["accuracy": "\(fix.horizontalAccuracy)"])
            return []
        }
        let fix = fix.normalized
        let now = clock.now
        let previous = locationMemory.fix(at: now)
        locationMemory.remember(fix, at: now)
        let requests = try await storeCall { try await store.locationRequests(appID: configuration.deliveryScope) }
        var updates: [RegionStateUpdate] = []
        var events: [LocationEvent] = []
        for item in requests {
            guard case .location(let region, _)? = item.request.spec.trigger else { continue }
            let step = RegionCrossing.evaluate(region, state: item.state, fix: fix, previousFix: previous)
            var dueAt: Date?
            if let crossing = step.crossing {
                let fires = RegionCrossing.notifies(crossing, region)
                if fires { dueAt = now }
                events.append(
                    LocationEvent(
                        appID: item.request.appID, requestIdentifier: item.request.identifier,
                        regionIdentifier: region.identifier, crossing: crossing, distance: step.distance, fires: fires))
                logger.info(
                    "region \(crossing == .entry ? "entered" : "left")",
                    metadata: [
                        "app": "\(item.request.appID)", "request": "\(item.request.identifier)",
                        "region": "\(region.identifier)", "fires": "\(fires)",
                    ])
            }
            if step.state != item.state || dueAt != nil {
                updates.append(RegionStateUpdate(revision: item.request.revision, state: step.state, dueAt: dueAt))
            }
        }
        try await storeCall { try await store.updateRegionStates(updates) }
        if events.contains(where: \.fires) {
            storeDidChange()
            if deliver { await deliverDue() }
        }
        return events
    }

    /// The last fix, if it is recent enough to be remembered (tests and `unotify status`).
    public var lastLocationFix: LocationFix? { locationMemory.fix(at: clock.now) }

    /// Forgets the last fix (a source stopped, or the person turned location off).
    public func forgetLocation() {
        locationMemory = LocationMemory()
    }
}

/// The last location fix and when the engine received it: memory only, forgotten after
/// ``NotificationScheduler/locationMemoryLifetime``.
struct LocationMemory: Sendable {
    private var fix: LocationFix?
    private var receivedAt: Date?

    /// The remembered fix, if it was received at most the lifetime before `now`.
    func fix(at now: Date) -> LocationFix? {
        guard let fix, let receivedAt, now.timeIntervalSince(receivedAt) <= NotificationScheduler.locationMemoryLifetime
        else { return nil }
        return fix
    }

    mutating func remember(_ fix: LocationFix, at now: Date) {
        self.fix = fix
        receivedAt = now
    }
}
