import DBusKit
import Foundation
import NotificationGeoClue
import Testing

@Suite("GeoClue2 location decoding")
struct GeoClueLocationTests {
    static let paris: [String: DBusValue] = [
        "Latitude": .double(48.8725), "Longitude": .double(2.350833), "Accuracy": .double(12.5),
        "Altitude": .double(35), "Speed": .double(-1), "Heading": .double(-1),
        "Description": .string(""), "Timestamp": .structure([.uint64(1_795_264_519), .uint64(250_000)]),
    ]

    @Test("decodes latitude, longitude, accuracy, altitude and the (tt) timestamp")
    func decodes() throws {
        let location = try GeoClueLocation(properties: Self.paris)
        #expect(location.latitude == 48.8725)
        #expect(location.longitude == 2.350833)
        #expect(location.accuracy == 12.5)
        #expect(location.altitude == 35)
        #expect(location.timestamp == Date(timeIntervalSince1970: 1_795_264_519.25))
    }

    @Test("looks through variants, as GetAll's a{sv} may nest them")
    func variants() throws {
        let wrapped = Self.paris.mapValues { DBusValue.variant($0) }
        #expect(try GeoClueLocation(properties: wrapped) == GeoClueLocation(properties: Self.paris))
    }

    @Test("maps to a fix with GeoClue's timestamp")
    func fixUsesTimestamp() throws {
        let arrival = Date(timeIntervalSince1970: 2_000_000_000)
        let fix = try GeoClueLocation(properties: Self.paris).fix(receivedAt: arrival)
        #expect(fix.latitude == 48.8725)
        #expect(fix.longitude == 2.350833)
        #expect(fix.horizontalAccuracy == 12.5)
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_795_264_519.25))
        #expect(fix.isUsable)
    }

    @Test(
        "uses the arrival time when the timestamp is missing, zero or not (tt)",
        arguments: [
            nil, DBusValue.structure([.uint64(0), .uint64(0)]), .uint64(1_795_264_519),
            .structure([.uint64(1), .uint32(2)]), .unsupported("(tt)"),
        ])
    func fixFallsBackToArrival(timestamp: DBusValue?) throws {
        var properties = Self.paris
        properties["Timestamp"] = timestamp
        let arrival = Date(timeIntervalSince1970: 2_000_000_000)
        let location = try GeoClueLocation(properties: properties)
        #expect(location.timestamp == nil)
        #expect(location.fix(receivedAt: arrival).timestamp == arrival)
    }

    @Test("an unknown altitude (-DBL_MAX) is nil")
    func unknownAltitude() throws {
        var properties = Self.paris
        properties["Altitude"] = .double(-Double.greatestFiniteMagnitude)
        #expect(try GeoClueLocation(properties: properties).altitude == nil)
        properties["Altitude"] = nil
        #expect(try GeoClueLocation(properties: properties).altitude == nil)
    }

    @Test("a missing or mistyped coordinate is an invalid reply", arguments: ["Latitude", "Longitude", "Accuracy"])
    func missing(name: String) {
        var missing = Self.paris
        missing[name] = nil
        var mistyped = Self.paris
        mistyped[name] = .string("48.8")
        for properties in [missing, mistyped] {
            let error = #expect(throws: GeoClueError.self) { try GeoClueLocation(properties: properties) }
            #expect(error?.code == .invalidReply)
            #expect(error?.message.contains(name) == true)
        }
    }

    @Test("the new DBusValue cases have their signatures and accessors")
    func values() {
        let timestamp = DBusValue.structure([.uint64(7), .uint64(8)])
        #expect(timestamp.signature == "(tt)")
        #expect(DBusValue.double(1.5).signature == "d")
        #expect(DBusValue.uint64(3).signature == "t")
        #expect(DBusValue.array([timestamp]).signature == "a(tt)")
        #expect(DBusValue.variant(.double(1.5)).doubleValue == 1.5)
        #expect(DBusValue.variant(.uint64(3)).uint64Value == 3)
        #expect(DBusValue.variant(timestamp).structureValue == [.uint64(7), .uint64(8)])
        #expect(DBusValue.string("x").doubleValue == nil)
    }

    @Test("accuracy levels carry GeoClue's numbers")
    func accuracyLevels() {
        #expect(
            [GeoClueAccuracyLevel.none, .country, .city, .neighborhood, .street, .exact].map(\.rawValue)
                == [0, 1, 4, 5, 6, 8])
        #expect(GeoClueAccuracyLevel.city < .exact)
    }

    @Test("no system bus is a typed error, not a trap")
    func noSystemBus() async {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-bus-\(UUID().uuidString)")
        let source = GeoClueLocationSource(
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(folder.path)/system_bus_socket"])
        let error = await #expect(throws: GeoClueError.self) {
            for try await _ in source.fixes() {}
        }
        #expect(error?.code == .noSystemBus)
        #expect(error?.message.contains(folder.path) == true)
    }
}
