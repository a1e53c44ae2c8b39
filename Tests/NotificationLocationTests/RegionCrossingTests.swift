import Foundation
import NotificationLocation
import NotificationModel
import Testing

@Suite("region crossings")
struct RegionCrossingTests {
    @Test(
        "the hysteresis band",
        arguments: [
            // (radius, accuracy, band)
            (50.0, 0.0, 10.0), (100.0, 0.0, 10.0), (500.0, 0.0, 50.0), (5_000.0, 0.0, 200.0), (50_000.0, 0.0, 200.0),
            (100.0, 30.0, 30.0), (1_000.0, 500.0, 200.0), (12.0, 0.0, 6.0), (50.0, 80.0, 25.0),
        ])
    func band(_ data: (Double, Double, Double)) {
        #expect(RegionCrossing.band(radius: data.0, accuracy: data.1) == data.2)
    }

    @Test("in and out again at different radii", arguments: [50.0, 500.0, 5_000.0, 50_000.0])
    func radii(_ radius: Double) {
        let region = RegionSpec(identifier: "r", latitude: 48.8566, longitude: 2.3522, radius: radius)
        let fixes = TrackBuilder.radial(
            region, distances: [3, 2, 1.5, 1.0, 0.5, 0, 0.5, 1.0, 1.5, 3].map { $0 * radius })
        let crossings = TrackBuilder.crossings(region, fixes)
        #expect(crossings.map(\.0) == [.entry, .exit])
        #expect(crossings.map(\.1) == [4, 8])  // first fix ≤ r − band, first fix ≥ r + band
    }

    @Test("a 50 m region: 39 m is in, 45 m is not yet, 61 m is out")
    func smallRegion() {
        let region = RegionSpec(identifier: "door", latitude: 52.52, longitude: 13.405, radius: 50)
        #expect(TrackBuilder.crossings(region, TrackBuilder.radial(region, distances: [100, 45, 55, 45])).isEmpty)
        #expect(TrackBuilder.crossings(region, TrackBuilder.radial(region, distances: [100, 45, 39])).map(\.1) == [2])
        #expect(
            TrackBuilder.crossings(region, TrackBuilder.radial(region, distances: [100, 39, 59, 61])).map(\.0) == [
                .entry, .exit,
            ])
    }

    @Test("jitter of ±5 m at the edge crosses once, not at every swing")
    func jitter() {
        let region = RegionSpec(identifier: "edge", latitude: 35.6762, longitude: 139.6503, radius: 100)
        var distances: [Double] = [300, 200, 150]
        for index in 0..<40 { distances.append(index.isMultiple(of: 2) ? 95 : 105) }
        distances += [50, 40]
        for index in 0..<40 { distances.append(index.isMultiple(of: 2) ? 95 : 105) }
        distances += [200, 300]
        let crossings = TrackBuilder.crossings(region, TrackBuilder.radial(region, distances: distances, bearing: 210))
        #expect(crossings.map(\.0) == [.entry, .exit])
        #expect(crossings.map(\.1) == [43, 85])
    }

    @Test("jitter within the accuracy band of a poor fix does not cross")
    func accuracyWidensBand() {
        let region = RegionSpec(identifier: "park", latitude: 40.7829, longitude: -73.9654, radius: 300)
        // Band 30 m without accuracy, 80 m for fixes unsure by 80 m: 250 m is inside only for the precise fix.
        let precise = TrackBuilder.radial(region, distances: [500, 250], accuracy: 0)
        let poor = TrackBuilder.radial(region, distances: [500, 250], accuracy: 80)
        #expect(TrackBuilder.crossings(region, precise).map(\.0) == [.entry])
        #expect(TrackBuilder.crossings(region, poor).isEmpty)
    }

    @Test("near the North Pole: a track over the pole crosses regions around 89.9°N")
    func pole() {
        // Up meridian 0 to the pole, down meridian 180: one fix every 0.01° of latitude (≈ 1.1 km).
        var points: [(Double, Double)] = stride(from: 89.5, through: 90.0, by: 0.01).map { ($0, 0) }
        points += stride(from: 89.99, through: 89.5, by: -0.01).map { ($0, 180) }
        let fixes = TrackBuilder.points(points)
        let onPath = RegionSpec(identifier: "a", latitude: 89.9, longitude: 0, radius: 5_000)
        let farSide = RegionSpec(identifier: "b", latitude: 89.9, longitude: 180, radius: 5_000)
        let pole = RegionSpec(identifier: "pole", latitude: 90, longitude: 0, radius: 20_000)
        let offPath = RegionSpec(identifier: "c", latitude: 89.9, longitude: 90, radius: 5_000)  // 11 km off the track
        for region in [onPath, farSide, pole] {
            #expect(TrackBuilder.crossings(region, fixes).map(\.0) == [.entry, .exit], "\(region.identifier)")
        }
        #expect(TrackBuilder.crossings(offPath, fixes).isEmpty)
        // The pole region is entered 20 km − 200 m band from the pole: the first fix north of 89.822°.
        let entry = TrackBuilder.crossings(pole, fixes)[0].1
        #expect(abs(fixes[entry].latitude - 89.83) < 0.006)
    }

    @Test("across the antimeridian: 179.9°E to 179.9°W")
    func antimeridian() {
        var points: [(Double, Double)] = stride(from: 179.9, through: 179.999, by: 0.005).map { (-16.5, $0) }
        points += stride(from: -180.0, through: -179.9, by: 0.005).map { (-16.5, $0) }
        let fixes = TrackBuilder.points(points)
        for (center, radius) in [(179.99, 1_500.0), (-179.99, 1_500.0), (180.0, 50.0), (-180.0, 3_000.0)] {
            let region = RegionSpec(identifier: "fiji", latitude: -16.5, longitude: center, radius: radius)
            let crossings = TrackBuilder.crossings(region, fixes)
            #expect(crossings.map(\.0) == [.entry, .exit], "center \(center), radius \(radius)")
        }
        // A region east of the line is never entered from a track that stays west of 179.9°E.
        let far = RegionSpec(identifier: "far", latitude: -16.5, longitude: -179.0, radius: 5_000)
        #expect(TrackBuilder.crossings(far, fixes).isEmpty)
    }

    @Test("the first deciding fix sets the state without firing, unless a fix before it was on the other side")
    func firstFix() {
        let region = RegionSpec(identifier: "home", latitude: 48.8566, longitude: 2.3522, radius: 200)
        let inside = TrackBuilder.radial(region, distances: [10])[0]
        let outside = TrackBuilder.radial(region, distances: [1_000])[0]
        let edge = TrackBuilder.radial(region, distances: [200])[0]
        let first = RegionCrossing.evaluate(region, state: .unknown, fix: inside)
        #expect(first.state == .inside && first.crossing == nil)
        #expect(RegionCrossing.evaluate(region, state: .unknown, fix: inside, previousFix: outside).crossing == .entry)
        #expect(RegionCrossing.evaluate(region, state: .unknown, fix: outside, previousFix: inside).crossing == .exit)
        #expect(RegionCrossing.evaluate(region, state: .unknown, fix: inside, previousFix: edge).crossing == nil)
        #expect(RegionCrossing.evaluate(region, state: .unknown, fix: edge, previousFix: outside).state == .outside)
        #expect(RegionCrossing.evaluate(region, state: .unknown, fix: edge).state == .unknown)
        #expect(RegionCrossing.evaluate(region, state: .inside, fix: outside, previousFix: outside).crossing == .exit)
    }

    @Test("notifyOnEntry and notifyOnExit choose the crossings that notify")
    func flags() {
        let entryOnly = RegionSpec(
            identifier: "e", latitude: 0, longitude: 0, radius: 100, notifyOnEntry: true, notifyOnExit: false)
        #expect(RegionCrossing.notifies(.entry, entryOnly) && !RegionCrossing.notifies(.exit, entryOnly))
        let exitOnly = RegionSpec(
            identifier: "x", latitude: 0, longitude: 0, radius: 100, notifyOnEntry: false, notifyOnExit: true)
        #expect(!RegionCrossing.notifies(.entry, exitOnly) && RegionCrossing.notifies(.exit, exitOnly))
    }

    @Test("unusable fixes")
    func usable() {
        let date = Date(timeIntervalSince1970: 0)
        #expect(LocationFix(latitude: 10, longitude: 10, horizontalAccuracy: 5, timestamp: date).isUsable)
        #expect(!LocationFix(latitude: 91, longitude: 10, timestamp: date).isUsable)
        #expect(!LocationFix(latitude: .nan, longitude: 10, timestamp: date).isUsable)
        #expect(!LocationFix(latitude: 10, longitude: 10, horizontalAccuracy: -1, timestamp: date).isUsable)
        #expect(!LocationFix(latitude: 10, longitude: 10, horizontalAccuracy: 5_000, timestamp: date).isUsable)
    }
}
