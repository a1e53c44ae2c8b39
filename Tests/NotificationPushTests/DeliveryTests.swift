import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import OpenUserNotifications
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// A temporary app folder with English tables.
func makeBundle() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-l10n-\(UUID().uuidString)")
    let lproj = folder.appendingPathComponent("en.lproj")
    try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
    let table = #""wake.title" = "Wake up!"; "wake.body" = "%d minutes to %@"; "MESSAGE_FROM" = "%@ sent you %@ photos";"#
    try Data(table.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
    return folder
}

/// A test system whose deliveries are resolved in English.
func makeSystem() throws -> NotificationTestSystem {
    try NotificationTestSystem(configuration: OpenUserNotificationsConfiguration(deliveryLanguages: { ["en"] }))
}

private func push(_ json: String, collapse: String? = nil, bundle: String? = nil) throws -> RemoteNotification {
    RemoteNotification(
        payload: try APNsPayload.parse(Data(json.utf8)), collapseIdentifier: collapse, bundleDirectory: bundle)
}

/// A receiver that records background pushes.
final class RecordingReceiver: RemoteNotificationReceiver {
    let received = Mutex<[RemoteNotification]>([])
    func didReceiveRemoteNotification(_ notification: RemoteNotification) async -> Bool {
        received.withLock { $0.append(notification) }
        return true
    }
    var count: Int { received.withLock { $0.count } }
}

/// A remote delegate that records what it is told.
final class RecordingRemoteDelegate: RemoteNotificationDelegate {
    let tokens = Mutex<[Data]>([])
    let pushes = Mutex<[[String: String]]>([])
    func didRegisterForRemoteNotifications(withDeviceToken deviceToken: Data) { tokens.withLock { $0.append(deviceToken) } }
    func didReceiveRemoteNotification(
        _ userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (RemoteNotificationFetchResult) -> Void
    ) {
        let feed = userInfo["feed"] as? String ?? ""
        let hasAPS = userInfo["aps"] is [String: Any]
        pushes.withLock { $0.append(["feed": feed, "aps": hasAPS ? "yes" : "no"]) }
        completionHandler(.newData)
    }
}

@Suite("Push delivery")
struct DeliveryTests {
    @Test("an alert push is delivered now through the ordinary path: presenter, delivered list, history, badge")
    func alertPush() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.game")
        let outcome = try await system.scheduler.deliverPush(try push(Fixtures.appleSample), appID: "com.example.game")
        #expect(outcome == .scheduled)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.title == "Game Request" && shown.body == "Bob wants to play poker")
        let delivered = try await system.scheduler.deliveredNotifications(appID: "com.example.game")
        #expect(delivered.count == 1)
        #expect(delivered.first?.request.trigger == .push)
        #expect(delivered.first?.request.content.userInfo["gameID"] == .string("12345678"))
        #expect(try await system.scheduler.pendingRequests(appID: "com.example.game").isEmpty)
        #expect(try await system.history(app: "com.example.game").first?.outcome == .delivered)
    }

    @Test("the app's delegate sees a UNPushNotificationTrigger and the whole payload in userInfo")
    func delegateSeesPush() async throws {
        let system = try makeSystem()
        let center = try await system.center(for: "com.example.game")
        let delegate = PresentingDelegate()
        center.delegate = delegate
        await system.settle(center)
        try await system.scheduler.deliverPush(try push(Fixtures.appleSample), appID: "com.example.game")
        let seen = try #require(delegate.seen.withLock { $0.first })
        #expect(seen.isPush)
        #expect(seen.gameID == "12345678")
        #expect(seen.hasAPS)
    }

    @Test("loc keys are resolved at delivery with the app's tables")
    func localized() async throws {
        let bundle = try makeBundle()
        defer { try? FileManager.default.removeItem(at: bundle) }
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.alarm")
        try await system.scheduler.deliverPush(try push(Fixtures.localized, bundle: bundle.path), appID: "com.example.alarm")
        try await system.scheduler.deliverPush(try push(Fixtures.chatMessage, bundle: bundle.path), appID: "com.example.alarm")
        let shown = system.presenter.presentations
        #expect(shown.map(\.title) == ["Wake up!", "Anna"])
        #expect(shown.map(\.body) == ["5 minutes to the train", "Anna sent you 3 photos"])
        // Without the app's folder the key is shown, formatted.
        try await system.scheduler.deliverPush(try push(Fixtures.localized), appID: "com.example.alarm")
        #expect(system.presenter.presentations.last?.title == "wake.title")
    }

    @Test("a collapse id replaces the delivered notification with the same id")
    func collapse() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.score")
        try await system.scheduler.deliverPush(try push(#"{"aps":{"alert":"1 : 0"}}"#, collapse: "match-9"), appID: "com.example.score")
        try await system.scheduler.deliverPush(try push(#"{"aps":{"alert":"2 : 0"}}"#, collapse: "match-9"), appID: "com.example.score")
        try await system.scheduler.deliverPush(try push(#"{"aps":{"alert":"other"}}"#), appID: "com.example.score")
        let delivered = try await system.scheduler.deliveredNotifications(appID: "com.example.score")
        #expect(delivered.count == 2)
        let match = try #require(delivered.first { $0.identifier == "match-9" })
        #expect(match.request.content.body == "2 : 0")
    }

    @Test("a background push is not shown: handed to the running app, or kept (the newest) until it runs")
    func backgroundPush() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.news")
        let first = try push(#"{"aps":{"content-available":1},"feed":"a"}"#)
        let second = try push(#"{"aps":{"content-available":1},"feed":"b"}"#)
        #expect(try await system.scheduler.deliverPush(first, appID: "com.example.news") == .queued)
        #expect(try await system.scheduler.deliverPush(second, appID: "com.example.news") == .queued)
        #expect(system.presenter.presentations.isEmpty)
        #expect(try await system.scheduler.deliveredNotifications(appID: "com.example.news").isEmpty)
        let receiver = RecordingReceiver()
        await system.scheduler.attachRemoteReceiver(receiver, appID: "com.example.news")
        #expect(receiver.received.withLock { $0.map { $0.content.userInfo["feed"] } } == [.string("b")])
        #expect(try await system.scheduler.store.queuedBackgroundPushes(appID: "com.example.news").isEmpty)
        #expect(try await system.scheduler.deliverPush(first, appID: "com.example.news") == .handedToApp)
        #expect(receiver.count == 2)
        await system.scheduler.detachRemoteReceiver(appID: "com.example.news")
        #expect(try await system.scheduler.deliverPush(first, appID: "com.example.news") == .queued)
        #expect(system.presenter.presentations.isEmpty)
    }

    @Test("an app that is denied gets nothing shown; the push is recorded as unauthorized")
    func denied() async throws {
        let system = try makeSystem()
        try await system.scheduler.setAuthorization(appID: "com.example.quiet", status: .denied, options: [])
        #expect(try await system.scheduler.deliverPush(try push(Fixtures.appleSample), appID: "com.example.quiet") == .unauthorized)
        // With mutable-content too (read before the service extension would be asked), and nothing is stored.
        #expect(try await system.scheduler.deliverPush(try push(Fixtures.chatMessage), appID: "com.example.quiet") == .unauthorized)
        #expect(system.presenter.presentations.isEmpty)
        #expect(try await system.history(app: "com.example.quiet").map(\.outcome) == [.unauthorized, .unauthorized])
        #expect(try await system.scheduler.store.pendingRequests(appID: "com.example.quiet").isEmpty)
        #expect(try await system.scheduler.deliveredNotifications(appID: "com.example.quiet").isEmpty)
    }

    @Test("tokens are stable per app until unregistered; then 410 with the time, and a new token on re-registering")
    func tokens() async throws {
        let system = try makeSystem()
        let first = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.a")
        #expect(first.token.hex.count == 64)
        #expect(try await system.scheduler.registerForRemoteNotifications(appID: "com.example.a").token == first.token)
        let other = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.b")
        #expect(other.token != first.token)
        #expect(try await system.scheduler.store.pushDestination(for: first.token).appID == "com.example.a")
        await system.advance(by: 90)
        try await system.scheduler.unregisterForRemoteNotifications(appID: "com.example.a")
        do throws(APNsReason) {
            _ = try await system.scheduler.store.pushDestination(for: first.token)
            Issue.record("an unregistered token was accepted")
        } catch {
            #expect(error == .unregistered)
            #expect(error.status == 410)
            #expect(error.timestamp == system.clock.now)
        }
        let again = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.a")
        #expect(again.token != first.token)
        await #expect(throws: APNsReason.unregistered) { try await system.scheduler.store.pushDestination(for: first.token) }
        await #expect(throws: APNsReason.badDeviceToken) { try await system.scheduler.store.pushDestination(for: DeviceToken.random()) }
        // Kept across a restart (in the store).
        #expect(try await system.restarted().scheduler.registerForRemoteNotifications(appID: "com.example.a").token == again.token)
    }

    @Test("registering through the daemon: the token lives in the daemon's store, unregistering ends it")
    func daemonRegistration() async throws {
        let system = try NotificationTestSystem(
            mode: .daemon, configuration: OpenUserNotificationsConfiguration(deliveryLanguages: { ["en"] }))
        let center = try await system.center(for: "com.example.news")
        let remote = RemoteNotificationRegistration(center: center)
        #expect(await !remote.isRegisteredForRemoteNotifications())
        let token = try await remote.register()
        #expect(token.count == 32)
        #expect(try await system.scheduler.store.pushRegistration(appID: "com.example.news")?.token.bytes == token)
        #expect(await remote.isRegisteredForRemoteNotifications())
        #expect(try await remote.register() == token)  // stable until unregistered
        try await remote.unregisterForRemoteNotifications()
        #expect(await !remote.isRegisteredForRemoteNotifications())
        #expect(try await remote.register() != token)
    }

    @Test("the app-side registration: delegate callbacks, background pushes to the running app")
    func appSide() async throws {
        let system = try makeSystem()
        let center = try await system.center(for: "com.example.news")
        let remote = RemoteNotificationRegistration(center: center)
        let delegate = RecordingRemoteDelegate()
        #expect(await !remote.isRegisteredForRemoteNotifications())
        let token = try await remote.register()
        #expect(token.count == 32)
        #expect(await remote.isRegisteredForRemoteNotifications())
        remote.delegate = delegate
        await remote.settle()
        remote.registerForRemoteNotifications()
        for _ in 0..<200 where delegate.tokens.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(delegate.tokens.withLock { $0 } == [token])
        let outcome = try await system.scheduler.deliverPush(
            try push(#"{"aps":{"content-available":1},"feed":"top"}"#), appID: "com.example.news")
        #expect(outcome == .handedToApp)
        #expect(delegate.pushes.withLock { $0 } == [["feed": "top", "aps": "yes"]])
        try await remote.unregisterForRemoteNotifications()
        #expect(await !remote.isRegisteredForRemoteNotifications())
        remote.delegate = nil
        await remote.settle()
        #expect(try await system.scheduler.deliverPush(try push(Fixtures.backgroundRefresh), appID: "com.example.news") == .queued)
    }
}

/// A center delegate that shows everything and records what it saw of pushes.
final class PresentingDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
    struct Seen: Sendable {
        var isPush: Bool
        var gameID: String?
        var hasAPS: Bool
    }
    let seen = Mutex<[Seen]>([])

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        let request = notification.request
        let userInfo = request.content.userInfo
        seen.withLock {
            $0.append(
                Seen(
                    isPush: request.trigger is UNPushNotificationTrigger, gameID: userInfo["gameID"] as? String,
                    hasAPS: userInfo["aps"] is [String: Any]))
        }
        return [.banner, .list]
    }
}
