import DBusKit
import Foundation
import NotificationGeoClue
import Testing

/// The real thing: GeoClue2 2.6 with the demo agent on a private system bus, fed NMEA sentences for a known
/// position. Enabled only as root with geoclue-2.0, geoclue-2-demo and dbus-daemon installed.
@Suite("GeoClue2 on a private system bus", .serialized, .timeLimit(.minutes(1)), .enabled(if: GeoClueStack.isAvailable))
struct GeoClueSystemTests {
    /// Paris, near the Gare de l'Est: 48°52.350′ N, 2°21.050′ E.
    static let latitude = 48.8725
    static let longitude = 2.350833
    /// GeoClue dates an NMEA fix with the sentence's time of day (today, or yesterday when that is in the future).
    static let timeOfDay = "123519"
    static let secondsOfDay: Int = 12 * 3600 + 35 * 60 + 19

    static let desktopID = "org.openusernotifications.GeoClueTests"

    @Test("a fix from NMEA sentences arrives with their position and GeoClue's timestamp")
    func fixFromNMEA() async throws {
        let stack = try await GeoClueStack(sentences: [
            NMEAServer.gga(latitude: Self.latitude, longitude: Self.longitude, time: Self.timeOfDay)
        ])
        do {
            let source = GeoClueLocationSource(
                configuration: GeoClueConfiguration(
                    desktopID: Self.desktopID, accuracyLevel: .exact, busAddress: stack.busAddress,
                    callTimeout: .seconds(20)))
            let fix = try await Self.firstFix(of: source.fixes(), within: .seconds(40))
            let distance = Self.metres(fix.latitude, fix.longitude, Self.latitude, Self.longitude)
            #expect(distance < 5, "fix \(fix) is \(distance) m away\n\(stack.log("geoclue"))")
            let seconds = Int(fix.timestamp.timeIntervalSince1970.rounded()) % 86_400
            #expect(seconds == Self.secondsOfDay, "the fix's time is GeoClue's Timestamp, not the arrival time")
        } catch {
            Issue.record("\(error)\n--- geoclue ---\n\(stack.log("geoclue").suffix(4000))\n--- agent ---\n\(stack.log("agent"))")
        }
        await stack.stop()
    }

    /// The first fix of `source`, or a failure after `limit` (the iteration is cancelled either way).
    static func firstFix<Fixes: AsyncSequence & Sendable>(of fixes: Fixes, within limit: Duration) async throws
        -> Fixes.Element where Fixes.Element: Sendable
    {
        try await withThrowingTaskGroup(of: Fixes.Element?.self) { group in
            group.addTask {
                for try await fix in fixes { return fix }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw FixtureError("no fix within \(limit)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let fix = first else {
                throw FixtureError("the source ended without a fix")
            }
            return fix
        }
    }

    /// The haversine distance in metres (the test's own, independent of NotificationLocation).
    static func metres(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let radians = Double.pi / 180
        let a =
            pow(sin((latitude2 - latitude1) * radians / 2), 2)
            + cos(latitude1 * radians) * cos(latitude2 * radians) * pow(sin((longitude2 - longitude1) * radians / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
    }
}
