import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import Testing

@Suite("Push registrations decoded once per stored text")
struct PushRegistrationCacheTests {
    @Test("a token's registration read for every push follows the store: unregistering answers 410 at once")
    func followsTheStore() async throws {
        let store = try SQLiteNotificationStore()
        let registered = Date(timeIntervalSince1970: 1_767_603_600)
        let registration = try await store.registerForRemoteNotifications(
            appID: "com.example.app", at: registered, bundleDirectory: nil)
        for _ in 0..<3 {
            #expect(try await store.pushDestination(for: registration.token) == registration)
        }
        let gone = registered.addingTimeInterval(60)
        try await store.unregisterForRemoteNotifications(appID: "com.example.app", at: gone)
        #expect(try await store.pushRegistration(token: registration.token)?.unregisteredAt == gone)
        await #expect(throws: APNsReason.self) { try await store.pushDestination(for: registration.token) }
    }

    @Test("other text decodes anew; text that is no registration throws and is not kept")
    func keyedByText() throws {
        let cache = PushRegistrationCache()
        let registration = PushRegistration(
            appID: "com.example.app", token: DeviceToken.random(), registeredAt: Date(timeIntervalSince1970: 0),
            bundleDirectory: "/a")
        let text = String(decoding: try JSONEncoder().encode(registration), as: UTF8.self)
        #expect(try cache.registration(decoding: text) == registration)
        #expect(try cache.registration(decoding: text) == registration)
        var moved = registration
        moved.bundleDirectory = "/b"
        let movedText = String(decoding: try JSONEncoder().encode(moved), as: UTF8.self)
        #expect(try cache.registration(decoding: movedText) == moved)
        #expect(throws: (any Error).self) { try cache.registration(decoding: "{}") }
    }
}
