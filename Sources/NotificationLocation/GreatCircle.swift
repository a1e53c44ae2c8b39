import Foundation

/// Distances on the Earth's surface, taken as a sphere.
///
/// The haversine formula on a sphere of radius ``earthRadius`` (the IUGG mean radius, 6,371,008.8 m) is exact for
/// the sphere at every distance, including near the poles and across the antimeridian (it only uses the
/// difference of longitudes through `sin²(Δλ/2)`, which is the same for +359° and −1°). Against the WGS-84
/// ellipsoid it is off by at most about 0.5 %, which for a region of 100 m is half a metre: far below GPS noise
/// and the ``RegionCrossing`` hysteresis band.
public enum GreatCircle {
    /// The mean Earth radius in metres (IUGG), the radius `CLCircularRegion.contains` uses too.
    public static let earthRadius: Double = 6_371_008.8

    /// The great-circle distance in metres between two points given in degrees.
    ///
    /// - Parameters:
    ///   - latitude1: Degrees north of the first point.
    ///   - longitude1: Degrees east of the first point.
    ///   - latitude2: Degrees north of the second point.
    ///   - longitude2: Degrees east of the second point.
    /// - Returns: The distance along the sphere, 0…π·``earthRadius``.
    ///
    /// ```swift
    /// GreatCircle.distance(48.8566, 2.3522, 51.5074, -0.1278)  // Paris–London, ≈ 343,560 m
    /// ```
    public static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double)
        -> Double
    {
        let φ1 = latitude1 * .pi / 180
        let φ2 = latitude2 * .pi / 180
        let Δφ = φ2 - φ1
        let Δλ = (longitude2 - longitude1) * .pi / 180
        let sinΔφ = sin(Δφ / 2)
        let sinΔλ = sin(Δλ / 2)
        let a = sinΔφ * sinΔφ + cos(φ1) * cos(φ2) * sinΔλ * sinΔλ
        return 2 * earthRadius * asin(min(1, sqrt(max(0, a))))
    }

    /// The point reached from a start point after `distance` metres along the initial `bearing` (degrees clockwise
    /// from north): used to build tracks in tests and examples.
    ///
    /// - Returns: The destination's latitude and longitude in degrees, the longitude wrapped into −180…180.
    public static func destination(
        fromLatitude latitude: Double, longitude: Double, distance: Double, bearing: Double
    ) -> (latitude: Double, longitude: Double) {
        let δ = distance / earthRadius
        let θ = bearing * .pi / 180
        let φ1 = latitude * .pi / 180
        let λ1 = longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        var degrees = λ2 * 180 / .pi
        degrees = (degrees + 540).truncatingRemainder(dividingBy: 360) - 180
        return (φ2 * 180 / .pi, degrees)
    }
}
