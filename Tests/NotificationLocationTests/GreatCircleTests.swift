import Foundation
import NotificationLocation
import Testing

@Suite("great-circle distance")
struct GreatCircleTests {
    @Test(
        "known distances",
        arguments: [
            // (lat1, lon1, lat2, lon2, metres, tolerance)
            (48.8566, 2.3522, 51.5074, -0.1278, 343_560.0, 500.0),  // Paris–London
            (40.7128, -74.0060, 51.5074, -0.1278, 5_570_000.0, 10_000.0),  // New York–London
            (0.0, 0.0, 0.0, 1.0, 111_195.0, 5.0),  // one degree on the equator
            (90.0, 0.0, -90.0, 0.0, .pi * 6_371_008.8, 0.01),  // pole to pole
            (0.0, 179.9, 0.0, -179.9, 22_239.0, 5.0),  // across the antimeridian: 0.2°, not 359.8°
            (89.9, 0.0, 89.9, 180.0, 22_239.0, 5.0),  // across the North Pole
            (-89.95, 90.0, -89.95, -90.0, 11_119.5, 5.0),  // across the South Pole
        ])
    func known(_ data: (Double, Double, Double, Double, Double, Double)) {
        let (lat1, lon1, lat2, lon2, expected, tolerance) = data
        let distance = GreatCircle.distance(lat1, lon1, lat2, lon2)
        #expect(abs(distance - expected) <= tolerance, "got \(distance)")
        #expect(abs(GreatCircle.distance(lat2, lon2, lat1, lon1) - distance) < 1e-6, "symmetric")
    }

    @Test("a point is at distance 0 from itself, including at the poles and on the antimeridian")
    func zero() {
        for (lat, lon) in [(0.0, 0.0), (90.0, 45.0), (-90.0, 0.0), (12.5, 180.0), (12.5, -180.0)] {
            #expect(GreatCircle.distance(lat, lon, lat, lon) < 1e-6)
        }
        #expect(GreatCircle.distance(12.5, 180, 12.5, -180) < 1e-6)
    }

    @Test("destination then distance gives the distance back", arguments: [0.0, 45.0, 90.0, 180.0, 270.0])
    func destination(_ bearing: Double) {
        for (lat, lon) in [(48.85, 2.35), (89.9, 0.0), (0.0, 179.99), (-60.0, -179.95)] {
            for distance in [50.0, 5_000.0, 50_000.0] {
                let point = GreatCircle.destination(
                    fromLatitude: lat, longitude: lon, distance: distance, bearing: bearing)
                #expect(abs(point.longitude) <= 180)
                #expect(abs(GreatCircle.distance(lat, lon, point.latitude, point.longitude) - distance) < 0.01)
            }
        }
    }

    @Test("longitudes are wrapped into −180…180")
    func normalized() {
        let fix = LocationFix(latitude: 0, longitude: 190, timestamp: Date(timeIntervalSince1970: 0)).normalized
        #expect(abs(fix.longitude - -170) < 1e-9)
        let west = LocationFix(latitude: 0, longitude: -540, timestamp: Date(timeIntervalSince1970: 0)).normalized
        #expect(abs(abs(west.longitude) - 180) < 1e-9)
    }
}
