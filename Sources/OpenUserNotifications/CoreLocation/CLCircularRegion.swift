import Foundation

// CoreLocation does not exist on Linux: these are the value types location triggers need, with Apple's names.

/// Degrees of latitude or longitude.
public typealias CLLocationDegrees = Double
/// A distance in metres.
public typealias CLLocationDistance = Double

/// A latitude and longitude.
public struct CLLocationCoordinate2D: Sendable, Hashable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees

    public init() {
        latitude = 0
        longitude = 0
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Makes a coordinate.
public func CLLocationCoordinate2DMake(_ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees)
    -> CLLocationCoordinate2D
{
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}

/// Whether a coordinate is within the valid ranges.
public func CLLocationCoordinate2DIsValid(_ coordinate: CLLocationCoordinate2D) -> Bool {
    abs(coordinate.latitude) <= 90 && abs(coordinate.longitude) <= 180
}

/// A geographic region.
open class CLRegion: NSObject, @unchecked Sendable {
    /// A unique identifier.
    public let identifier: String
    /// Whether entering the region notifies.
    open var notifyOnEntry = true
    /// Whether leaving the region notifies.
    open var notifyOnExit = true

    init(identifier: String) {
        self.identifier = identifier
    }
}

/// A circle on the Earth's surface.
open class CLCircularRegion: CLRegion, @unchecked Sendable {
    public let center: CLLocationCoordinate2D
    public let radius: CLLocationDistance

    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        self.radius = radius
        super.init(identifier: identifier)
    }

    /// Whether the coordinate lies within the circle (great-circle distance).
    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        let earthRadius = 6_371_008.8
        let (φ1, φ2) = (center.latitude * .pi / 180, coordinate.latitude * .pi / 180)
        let Δφ = φ2 - φ1
        let Δλ = (coordinate.longitude - center.longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(a))) <= radius
    }
}
