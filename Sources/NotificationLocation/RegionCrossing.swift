import Foundation
import NotificationModel

/// Decides when a track of fixes enters or leaves a circular region: great-circle distance plus a hysteresis
/// band, so that GPS jitter at the boundary does not fire again and again.
///
/// A fix is *inside* when its distance to the center is at most `radius − band`, *outside* when it is at least
/// `radius + band`, and *undecided* in between: an undecided fix keeps the previous state. A crossing is a change
/// between inside and outside. The band is
///
///     band = min(max(10 m, min(10 % of the radius, 200 m), min(accuracy, 200 m)), radius / 2)
///
/// so a 50 m region needs a fix within 40 m to count as entered and beyond 60 m to count as left; a 50 km region
/// needs 200 m either way; a fix that is unsure by 80 m widens the band to 80 m. The band never exceeds half the
/// radius, so the inside stays reachable.
///
/// The first deciding fix after a trigger is added sets the state without firing: a trigger added while the
/// device is already inside does not report an entry until the device has left and come back. The exception is
/// a fix known from before the add (`previousFix`): when that fix was outside, the first fix inside is an entry.
///
/// ```swift
/// let region = RegionSpec(identifier: "home", latitude: 48.85, longitude: 2.35, radius: 100)
/// let step = RegionCrossing.evaluate(region, state: .outside, fix: fix)
/// if let crossing = step.crossing, RegionCrossing.notifies(crossing, region) { … }
/// ```
public enum RegionCrossing {
    /// A change between outside and inside.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// From outside to inside.
        case entry
        /// From inside to outside.
        case exit
    }

    /// The smallest band, in metres: about the noise of a good GPS fix.
    public static let minimumBand: Double = 10
    /// The largest band that the radius or the accuracy can ask for, in metres (Apple documents that a crossing
    /// is reported once the device is about 200 m past the boundary).
    public static let maximumBand: Double = 200
    /// The part of the radius that widens the band for large regions.
    public static let radiusFraction: Double = 0.1

    /// The outcome of one fix for one region.
    public struct Step: Sendable, Hashable {
        /// The state after the fix.
        public var state: RegionState
        /// The crossing the fix completed, if any (whether or not the region notifies on it).
        public var crossing: Kind?
        /// The distance from the region's center, in metres.
        public var distance: Double

        /// Creates a step.
        public init(state: RegionState, crossing: Kind?, distance: Double) {
            self.state = state
            self.crossing = crossing
            self.distance = distance
        }
    }

    /// The hysteresis band in metres for a region of `radius` metres and a fix unsure by `accuracy` metres.
    public static func band(radius: Double, accuracy: Double) -> Double {
        let wanted = max(minimumBand, min(radiusFraction * radius, maximumBand), min(max(accuracy, 0), maximumBand))
        return min(wanted, radius / 2)
    }

    /// The great-circle distance in metres from the region's center to the fix.
    public static func distance(_ region: RegionSpec, _ fix: LocationFix) -> Double {
        GreatCircle.distance(region.latitude, region.longitude, fix.latitude, fix.longitude)
    }

    /// What a fix says on its own: inside, outside, or `unknown` when it falls inside the band.
    public static func classify(_ fix: LocationFix, in region: RegionSpec) -> RegionState {
        let distance = distance(region, fix)
        let band = band(radius: region.radius, accuracy: fix.horizontalAccuracy)
        if distance <= region.radius - band { return .inside }
        if distance >= region.radius + band { return .outside }
        return .unknown
    }

    /// Applies one fix to a region's state.
    ///
    /// - Parameters:
    ///   - region: The region.
    ///   - state: The state before the fix; `unknown` for a trigger no fix has decided yet.
    ///   - fix: The new fix (callers skip fixes that are not ``LocationFix/isUsable``).
    ///   - previousFix: The last fix seen before this one, when the state is still `unknown`: if it decides
    ///     (inside or outside), it is the starting state, so a trigger added while the device was known to be
    ///     outside fires on the first fix inside.
    /// - Returns: The new state and the crossing, if the fix completed one.
    public static func evaluate(
        _ region: RegionSpec, state: RegionState, fix: LocationFix, previousFix: LocationFix? = nil
    ) -> Step {
        let distance = distance(region, fix)
        var before = state
        if before == .unknown, let previousFix { before = classify(previousFix, in: region) }
        let now = classify(fix, in: region)
        switch (before, now) {
        case (_, .unknown): return Step(state: before, crossing: nil, distance: distance)
        case (.unknown, _): return Step(state: now, crossing: nil, distance: distance)
        case (.outside, .inside): return Step(state: .inside, crossing: .entry, distance: distance)
        case (.inside, .outside): return Step(state: .outside, crossing: .exit, distance: distance)
        default: return Step(state: now, crossing: nil, distance: distance)
        }
    }

    /// Whether the region asks to be told about a crossing (`notifyOnEntry`, `notifyOnExit`).
    public static func notifies(_ crossing: Kind, _ region: RegionSpec) -> Bool {
        switch crossing {
        case .entry: region.notifyOnEntry
        case .exit: region.notifyOnExit
        }
    }
}
