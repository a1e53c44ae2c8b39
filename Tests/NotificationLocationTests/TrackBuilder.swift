import Foundation
import NotificationLocation
import NotificationModel

/// Builds fixes at given distances from a region's center, one second apart.
enum TrackBuilder {
    static let start = Date(timeIntervalSince1970: 1_767_603_600)

    /// Fixes at `distances` metres from the center along `bearing`.
    static func radial(_ region: RegionSpec, distances: [Double], bearing: Double = 90, accuracy: Double = 0)
        -> [LocationFix]
    {
        distances.enumerated().map { index, distance in
            let point = GreatCircle.destination(
                fromLatitude: region.latitude, longitude: region.longitude, distance: distance, bearing: bearing)
            return LocationFix(
                latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy,
                timestamp: start.addingTimeInterval(Double(index)))
        }
    }

    /// Fixes at the given coordinates, one second apart.
    static func points(_ coordinates: [(Double, Double)]) -> [LocationFix] {
        coordinates.enumerated().map { index, point in
            LocationFix(latitude: point.0, longitude: point.1, timestamp: start.addingTimeInterval(Double(index)))
        }
    }

    /// Runs a track through the crossing logic from `unknown` and returns the crossings, with the index of the
    /// fix that completed each.
    static func crossings(_ region: RegionSpec, _ fixes: [LocationFix]) -> [(RegionCrossing.Kind, Int)] {
        var state = RegionState.unknown
        var result: [(RegionCrossing.Kind, Int)] = []
        for (index, fix) in fixes.enumerated() {
            let step = RegionCrossing.evaluate(region, state: state, fix: fix)
            state = step.state
            if let crossing = step.crossing { result.append((crossing, index)) }
        }
        return result
    }
}
