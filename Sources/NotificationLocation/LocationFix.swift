import Foundation

/// One position report: where the device is, how sure the source is, and when it was measured.
///
/// Apple's `CLLocation` carries the same fields. A fix is a value: sources produce it, the engine evaluates it
/// and keeps only the latest one, in memory.
///
/// ```swift
/// let fix = LocationFix(latitude: 48.8584, longitude: 2.2945, horizontalAccuracy: 15, timestamp: Date())
/// ```
public struct LocationFix: Sendable, Hashable, Codable {
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180.
    public var longitude: Double
    /// The radius of uncertainty in metres; 0 when the source does not say, negative when the fix is invalid
    /// (as in `CLLocation`).
    public var horizontalAccuracy: Double
    /// When the position was measured.
    public var timestamp: Date

    /// The least accurate fix that is still evaluated: a source that is unsure by more than this says nothing
    /// useful about a region boundary.
    public static let worstUsableAccuracy: Double = 1_000

    /// Creates a fix.
    ///
    /// - Parameters:
    ///   - latitude: Degrees, −90…90.
    ///   - longitude: Degrees, −180…180 (values outside are accepted and wrapped by ``normalized``).
    ///   - horizontalAccuracy: Metres; 0 when unknown.
    ///   - timestamp: When it was measured.
    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double = 0, timestamp: Date) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.timestamp = timestamp
    }

    /// Why the fix's numbers cannot be a place on Earth (a coordinate that is not finite, a latitude beyond ±90°, a
    /// longitude beyond ±180°, a negative or non-finite accuracy), or `nil` when they can.
    public var coordinateProblem: String? {
        if !latitude.isFinite || abs(latitude) > 90 { return "latitude \(latitude) is not between -90 and 90" }
        if !longitude.isFinite || abs(longitude) > 180 { return "longitude \(longitude) is not between -180 and 180" }
        if !horizontalAccuracy.isFinite || horizontalAccuracy < 0 {
            return "accuracy \(horizontalAccuracy) is not a number of metres from 0 up"
        }
        return nil
    }

    /// Whether the fix can be evaluated: finite coordinates, a latitude within ±90°, and an accuracy that is
    /// neither invalid (negative) nor worse than ``worstUsableAccuracy``.
    public var isUsable: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && horizontalAccuracy.isFinite
            && horizontalAccuracy >= 0 && horizontalAccuracy <= Self.worstUsableAccuracy
    }

    /// The fix with its longitude wrapped into −180…180.
    public var normalized: LocationFix {
        var fix = self
        var longitude = fix.longitude.truncatingRemainder(dividingBy: 360)
        if longitude > 180 { longitude -= 360 }
        if longitude < -180 { longitude += 360 }
        fix.longitude = longitude
        return fix
    }
}
