import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import PostgresNIO
import Testing

@Suite("Device registry on PostgreSQL")
struct DeviceRegistryTests {
    static let token = String(repeating: "ab", count: 32)

    func registration(
        _ id: String = "phone-1", token: String = token, topic: String = "com.example.app",
        environment: Device.Environment = .production, zone: String = "Europe/Paris", locale: String = "fr_FR"
    ) -> DeviceRegistration {
        DeviceRegistration(
            id: id, token: token, topic: topic, environment: environment, timeZoneIdentifier: zone,
            localeIdentifier: locale)
    }

    @Test("registering, updating, listing and removing devices; the device's app identity is authorized")
    func lifecycle() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let (device, previous) = try await store.registerDevice(registration(), at: start)
            #expect(previous == nil)
            #expect(device.appID == "device:phone-1")
            #expect(device.isActive && device.createdAt == start && device.updatedAt == start)
            let upper = String(repeating: "CD", count: 32)
            try await store.registerDevice(
                registration("tablet", token: upper, environment: .development, zone: "America/New_York"), at: start)
            #expect(try await store.devices().map(\.id) == ["phone-1", "tablet"])
            let tablet = try #require(try await store.device(id: "tablet"))
            #expect(tablet.token.hex == upper.lowercased())
            #expect(tablet.environment == .development && tablet.timeZoneIdentifier == "America/New_York")
            let state = try #require(try await store.appState(appID: "device:tablet"))
            #expect(state.authorization == .authorized && state.grantedOptions == [.alert, .sound, .badge])

            // Registering again updates in place: created stays, updated moves, the previous value comes back.
            let later = start.addingTimeInterval(60)
            let (moved, before) = try await store.registerDevice(registration(zone: "Asia/Tokyo"), at: later)
            #expect(before?.timeZoneIdentifier == "Europe/Paris")
            #expect(moved.timeZoneIdentifier == "Asia/Tokyo" && moved.createdAt == start && moved.updatedAt == later)
            #expect(try await store.device(id: "phone-1") == moved)

            // Removing takes its pending requests with it.
            _ = try await store.insertPending(request("r", fireIn: 60, app: "device:tablet"), cap: nil, at: start)
            let removed = try await store.removeDevice(id: "tablet", at: later)
            #expect(removed.map(\.identifier) == ["r"])
            #expect(try await store.device(id: "tablet") == nil)
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.appState(appID: "device:tablet") == nil)
            await #expect(throws: DeviceError(.unknownDevice, "no device has the identifier 'tablet'")) {
                try await store.removeDevice(id: "tablet", at: later)
            }
        }
    }

    @Test("bad registrations are refused with a clear error and store nothing")
    func badInput() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let cases: [(DeviceRegistration, DeviceError.Code, String)] = [
                (registration(zone: "Mars/Olympus_Mons"), .unknownTimeZone, "unknown time zone 'Mars/Olympus_Mons'"),
                (registration(token: "abc"), .malformedToken, "device token 'abc' is not 64 hex digits"),
                (
                    registration(token: String(repeating: "zz", count: 32)), .malformedToken,
                    "device token '\(String(repeating: "zz", count: 32))' is not 64 hex digits"
                ),
                (registration(""), .invalidIdentifier, "a device identifier has 1 to 200 characters and no control characters"),
                (registration("a\u{0}b"), .invalidIdentifier, "a device identifier has 1 to 200 characters and no control characters"),
                (registration(topic: "com.example app"), .invalidTopic, "topic 'com.example app' is empty or has spaces"),
                (registration(locale: ""), .invalidLocale, "locale '' is empty or has spaces"),
            ]
            for (bad, expectedCode, expectedMessage) in cases {
                let error = await #expect(throws: DeviceError.self) { try await store.registerDevice(bad, at: start) }
                #expect(error?.code == expectedCode)
                #expect(error?.message == expectedMessage)
            }
            let stored = try await store.devices()
            #expect(stored.isEmpty)
        }
    }

    @Test("deactivating a device drops its pending requests; registering again makes it active")
    func deactivation() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            try await store.registerDevice(registration(), at: start)
            try await store.registerDevice(registration("other"), at: start)
            for id in ["a", "b"] {
                _ = try await store.insertPending(request(id, fireIn: 60, app: "device:phone-1"), cap: nil, at: start)
            }
            _ = try await store.insertPending(request("c", fireIn: 60, app: "device:other"), cap: nil, at: start)
            let dropped = try await store.deactivateDevice(id: "phone-1", at: start.addingTimeInterval(5))
            #expect(dropped.map(\.identifier) == ["a", "b"])
            let gone = try #require(try await store.device(id: "phone-1"))
            #expect(!gone.isActive && gone.updatedAt == start.addingTimeInterval(5))
            #expect(try await store.devices(activeOnly: true).map(\.id) == ["other"])
            #expect(try await store.pendingCounts() == ["device:other": 1])
            try await store.registerDevice(registration(), at: start.addingTimeInterval(9))
            #expect(try await store.device(id: "phone-1")?.isActive == true)
            await #expect(throws: DeviceError.self) { try await store.deactivateDevice(id: "nobody", at: start) }
        }
    }

    @Test("a database at schema version 1 gains steps 2 to 9 (devices to the push aps flags) and keeps its requests")
    func migratesFromVersion1() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            _ = try await store.insertPending(request("kept", fireIn: 60), cap: nil, at: start)
        }
        // Back to what version 1 made.
        try await withClient(configuration) { client in
            try await client.query("DROP TRIGGER pending_inserted ON pending")
            try await client.query("DROP FUNCTION unotify_pending_inserted")
            try await client.query("DROP TABLE dead_letter")
            try await client.query("DROP TABLE push_receipt")
            try await client.query("DROP TRIGGER push_inserted ON push")
            try await client.query("DROP FUNCTION unotify_push_inserted")
            try await client.query("DROP TABLE push")
            try await client.query("DROP INDEX history_request")
            try await client.query("DROP TABLE device_account")
            try await client.query("DROP TABLE device_alias")
            try await client.query("DROP TABLE device_tag")
            try await client.query("DROP TABLE device_floating")
            try await client.query("DROP TABLE device")
            try await client.query("DELETE FROM schema_version WHERE version > 1")
        }
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            #expect(try await store.pendingRequests(appID: "com.example.app").map(\.identifier) == ["kept"])
            try await store.registerDevice(registration(), at: start)
            #expect(try await store.devices().count == 1)
        }
    }
}
