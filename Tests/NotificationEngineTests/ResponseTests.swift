import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

@Suite("Responses, categories and badges")
struct ResponseTests {
    static let reminder = UNNotificationCategory(
        identifier: "reminder",
        actions: [
            UNNotificationAction(identifier: "done", title: "Done", options: [.foreground]),
            UNTextInputNotificationAction(
                identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "…"),
        ],
        intentIdentifiers: [], options: [.customDismissAction])
    static let plain = UNNotificationCategory(
        identifier: "plain", actions: [UNNotificationAction(identifier: "ok", title: "OK")], intentIdentifiers: [])

    /// A system with one delivered notification per category.
    func delivered(_ mode: NotificationTestSystem.Mode) async throws -> (NotificationTestSystem, UNUserNotificationCenter) {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        center.setNotificationCategories([Self.reminder, Self.plain])
        for (id, category) in [("r", "reminder"), ("p", "plain")] {
            try await center.add(UNNotificationRequest(identifier: id, content: content(id, category: category), trigger: nil))
        }
        await system.advance(by: 0)
        return (system, center)
    }

    @Test("the category's actions are offered in order", arguments: NotificationTestSystem.Mode.allCases)
    func actionsInOrder(mode: NotificationTestSystem.Mode) async throws {
        let (system, _) = try await delivered(mode)
        let shown = system.presenter.presentations.first { $0.identifier == "r" }
        #expect(shown?.actionTitles == ["Done", "Reply"])
    }

    @Test("responses to an app that is not running are queued and handed to its delegate when it sets one", arguments: NotificationTestSystem.Mode.allCases)
    func queuedUntilDelegate(mode: NotificationTestSystem.Mode) async throws {
        let (system, center) = try await delivered(mode)
        #expect(try await system.respond(to: "r", app: app, actionIdentifier: "done"))
        #expect(try await system.respond(to: "p", app: app))
        #expect(await center.deliveredNotifications().isEmpty)
        let delegate = RecordingDelegate()
        center.delegate = delegate
        await system.settle(center)
        #expect(delegate.responses.map(\.actionIdentifier) == ["done", UNNotificationDefaultActionIdentifier])
        // Handed over once only.
        center.delegate = delegate
        await system.settle(center)
        #expect(delegate.responses.count == 2)
    }

    @Test("a response to an app that is not running starts its launch command", arguments: NotificationTestSystem.Mode.allCases)
    func launchCommand(mode: NotificationTestSystem.Mode) async throws {
        let (system, center) = try await delivered(mode)
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("launched-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        try await center.setLaunchCommand(["/bin/sh", "-c", "echo \"$OPENUN_BUNDLE_ID $OPENUN_LAUNCH_REASON\" > \(marker.path)"])
        await #expect(throws: NotificationRequestError.self) { try await center.setLaunchCommand(["relative/path"]) }
        try await system.respond(to: "r", app: app, actionIdentifier: "done")
        // A real process runs: wait for its file, bounded.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker.path) || (try? String(contentsOf: marker, encoding: .utf8))?.isEmpty != false,
            Date() < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try String(contentsOf: marker, encoding: .utf8) == "\(app) response\n")
        // The response waits for the app's delegate.
        let delegate = RecordingDelegate()
        center.delegate = delegate
        await system.settle(center)
        #expect(delegate.responses.map(\.actionIdentifier) == ["done"])
    }

    @Test("text input arrives as UNTextInputNotificationResponse", arguments: NotificationTestSystem.Mode.allCases)
    func textInput(mode: NotificationTestSystem.Mode) async throws {
        let (system, center) = try await delivered(mode)
        let delegate = RecordingDelegate()
        center.delegate = delegate
        await system.settle(center)
        try await system.respond(to: "r", app: app, actionIdentifier: "reply", text: "on my way")
        let response = try #require(delegate.responses.first as? UNTextInputNotificationResponse)
        #expect(response.userText == "on my way")
        #expect(response.notification.request.identifier == "r")
    }

    @Test("dismissal reaches the delegate only when the category has customDismissAction", arguments: NotificationTestSystem.Mode.allCases)
    func dismissal(mode: NotificationTestSystem.Mode) async throws {
        let (system, center) = try await delivered(mode)
        let delegate = RecordingDelegate()
        center.delegate = delegate
        await system.settle(center)
        #expect(try await system.respond(to: "p", app: app, actionIdentifier: UNNotificationDismissActionIdentifier) == false)
        #expect(try await system.respond(to: "r", app: app, actionIdentifier: UNNotificationDismissActionIdentifier))
        #expect(delegate.responses.map(\.actionIdentifier) == [UNNotificationDismissActionIdentifier])
        #expect(delegate.responses.first?.notification.request.identifier == "r")
        let outcomes = Set(try await system.history(app: app).map(\.outcome))
        #expect(outcomes == [.dismissed])
    }

    @Test("unknown actions, text for a plain action and unknown notifications are errors", arguments: NotificationTestSystem.Mode.allCases)
    func badResponses(mode: NotificationTestSystem.Mode) async throws {
        let (system, _) = try await delivered(mode)
        await #expect(throws: EngineError.self) { try await system.respond(to: "p", app: app, actionIdentifier: "nope") }
        await #expect(throws: EngineError.self) { try await system.respond(to: "p", app: app, actionIdentifier: "ok", text: "x") }
        await #expect(throws: EngineError.self) { try await system.respond(to: "missing", app: app) }
        // Another app cannot answer this app's notifications.
        await #expect(throws: EngineError.self) { try await system.respond(to: "p", app: "com.example.other") }
    }

    @Test("setNotificationCategories replaces the whole set, per app", arguments: NotificationTestSystem.Mode.allCases)
    func categoriesReplace(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        center.setNotificationCategories([Self.reminder, Self.plain])
        center.setNotificationCategories([Self.plain])
        #expect(await center.notificationCategories().map(\.identifier) == ["plain"])
        #expect(await center.notificationCategories() == [Self.plain])
        let other = try await system.center(for: "com.example.other")
        #expect(await other.notificationCategories().isEmpty)
    }

    @Test("a badge in the content sets the app's badge; setBadgeCount sets it directly and rejects negatives", arguments: NotificationTestSystem.Mode.allCases)
    func badges(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(UNNotificationRequest(identifier: "b", content: content("b", badge: 7), trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.badges[app] == 7)
        try await center.setBadgeCount(0)
        #expect(system.presenter.badges[app] == 0)
        await #expect(throws: UNError.self) { try await center.setBadgeCount(-1) }
        do {
            try await center.setBadgeCount(-1)
        } catch UNError.badgeInputInvalid {
            // Matched by code, as with Apple's bridged error.
        }
    }

    @Test("authorization: the policy answers, denied apps cannot add, settings reflect the grant", arguments: NotificationTestSystem.Mode.allCases)
    func authorization(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app, authorize: false)
        #expect(await center.notificationSettings().authorizationStatus == .notDetermined)
        #expect(try await center.requestAuthorization(options: [.alert, .sound]))
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled && settings.soundSetting == .enabled && settings.badgeSetting == .disabled)

        var denying = OpenUserNotificationsConfiguration()
        denying.authorizationPolicy = .deny
        let strict = try NotificationTestSystem(mode: mode, configuration: denying)
        let denied = try await strict.center(for: app, authorize: false)
        #expect(try await denied.requestAuthorization(options: [.alert]) == false)
        #expect(await denied.notificationSettings().authorizationStatus == .denied)
        await #expect(throws: UNError.self) { try await denied.add(interval("x", 10)) }
        do {
            try await denied.add(interval("x", 10))
            Issue.record("add succeeded for a denied app")
        } catch let error as UNError {
            #expect(error.code == .notificationsNotAllowed)
            #expect((error as NSError).domain == UNErrorDomain)
            #expect((error as NSError).code == 1)
        }
    }

    @Test("an app granted no sound or badge gets neither; one never asked is not shown", arguments: NotificationTestSystem.Mode.allCases)
    func presentationFollowsGrant(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app, authorize: false)
        try await center.add(UNNotificationRequest(identifier: "quiet", content: content("q", badge: 3), trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.isEmpty)
        #expect(try await system.history(app: app).first?.outcome == .unauthorized)
        _ = try await center.requestAuthorization(options: [.alert])
        try await center.add(UNNotificationRequest(identifier: "loud", content: content("l", badge: 3), trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.first?.options == [.banner, .list])
        #expect(system.presenter.badges[app] == nil)
    }

    @Test("a floating calendar trigger moves with the system zone; a fixed one and intervals do not", arguments: NotificationTestSystem.Mode.allCases)
    func zoneChange(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode, now: instant("2026-01-05T00:00:00Z"), timeZone: TimeZone(identifier: "Europe/Paris")!)
        let center = try await system.center(for: app)
        var nine = DateComponents()
        nine.hour = 9
        var fixedNine = nine
        fixedNine.timeZone = TimeZone(identifier: "Europe/Paris")
        try await center.add(UNNotificationRequest(identifier: "floating", content: content("f"), trigger: UNCalendarNotificationTrigger(dateMatching: nine, repeats: true)))
        try await center.add(UNNotificationRequest(identifier: "fixed", content: content("x"), trigger: UNCalendarNotificationTrigger(dateMatching: fixedNine, repeats: true)))
        try await center.add(interval("interval", 7_200))
        func planned() async -> [String: Date] {
            Dictionary(uniqueKeysWithValues: await center.pendingNotificationRequests().map {
                ($0.identifier, ($0.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate()
                    ?? ($0.trigger as? UNTimeIntervalNotificationTrigger)?.nextTriggerDate() ?? .distantPast)
            })
        }
        #expect(await planned() == ["floating": instant("2026-01-05T08:00:00Z"), "fixed": instant("2026-01-05T08:00:00Z"), "interval": instant("2026-01-05T02:00:00Z")])
        try await system.setTimeZone(TimeZone(identifier: "America/New_York")!)
        #expect(await planned() == ["floating": instant("2026-01-05T14:00:00Z"), "fixed": instant("2026-01-05T08:00:00Z"), "interval": instant("2026-01-05T02:00:00Z")])
        await system.advance(by: 86_400)
        #expect(system.presenter.presentations.map(\.identifier) == ["interval", "fixed", "floating"])
    }

    @Test("a zone change while no engine ran is noticed when the store is opened again", arguments: NotificationTestSystem.Mode.allCases)
    func zoneChangeWhileStopped(mode: NotificationTestSystem.Mode) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let start = instant("2026-01-05T00:00:00Z")
        let before = try NotificationTestSystem(mode: mode, now: start, timeZone: TimeZone(identifier: "Europe/Paris")!, storePath: path)
        var nine = DateComponents()
        nine.hour = 9
        try await before.center(for: app).add(UNNotificationRequest(identifier: "f", content: content("f"), trigger: UNCalendarNotificationTrigger(dateMatching: nine, repeats: false)))
        let after = try NotificationTestSystem(mode: mode, now: start, timeZone: TimeZone(identifier: "Asia/Tokyo")!, storePath: path)
        await after.advance(by: 0)
        let pending = await (try after.center(for: app)).pendingNotificationRequests()
        #expect((pending.first?.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate() == instant("2026-01-06T00:00:00Z"))
    }
}

/// Records what a delegate receives; answers willPresent with banner and sound.
final class RecordingDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var _responses: [UNNotificationResponse] = []
    private var _presented: [UNNotification] = []
    var answer: UNNotificationPresentationOptions = [.banner, .sound]

    var responses: [UNNotificationResponse] { lock.withLock { _responses } }
    var presented: [UNNotification] { lock.withLock { _presented } }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        lock.withLock { _presented.append(notification) }
        return answer
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        lock.withLock { _responses.append(response) }
    }
}

@Suite("Floating plans")
struct FloatingPlanTests {
    func daily(_ id: String, hour: Int) -> UNNotificationRequest {
        UNNotificationRequest(
            identifier: id, content: content(id),
            trigger: UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: hour), repeats: true))
    }

    @Test("requests with identical components share one plan, and a zone change moves them all by moving the plan", arguments: NotificationTestSystem.Mode.allCases)
    func sharedPlan(mode: NotificationTestSystem.Mode) async throws {
        var configuration = OpenUserNotificationsConfiguration()
        configuration.pendingCap = nil
        let system = try NotificationTestSystem(
            mode: mode, now: instant("2026-01-05T00:00:00Z"), timeZone: TimeZone(identifier: "Europe/Paris")!, configuration: configuration)
        let center = try await system.center(for: app)
        for index in 0..<300 { try await center.add(daily("r\(index)", hour: 7 + index % 3)) }
        #expect(try await system.scheduler.store.floatingPlans(dueAfter: system.clock.now).count == 3)
        try await system.setTimeZone(TimeZone(identifier: "Asia/Tokyo")!)
        let dates = Set(await center.pendingNotificationRequests().compactMap { ($0.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate() })
        #expect(dates == Set(["2026-01-05T22:00:00Z", "2026-01-05T23:00:00Z", "2026-01-06T00:00:00Z"].map(instant)))
        await system.advance(by: 86_400)
        #expect(system.presenter.presentations.count == 300)
        #expect(Set(await center.pendingNotificationRequests().compactMap { ($0.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate() })
            == Set(["2026-01-06T22:00:00Z", "2026-01-06T23:00:00Z", "2026-01-07T00:00:00Z"].map(instant)))
    }

    @Test("a request added while its plan is due but undelivered waits for its own first match")
    func addedWhileDue() async throws {
        let system = try NotificationTestSystem(now: instant("2026-01-05T08:00:00Z"))
        let center = try await system.center(for: app)
        try await center.add(daily("early", hour: 9))
        system.clock.advance(by: 5_400)  // 9:30, nothing delivered yet (the machine was asleep)
        try await center.add(daily("late", hour: 9))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.map(\.identifier) == ["early"])
        await system.advance(by: 86_400)
        #expect(system.presenter.presentations.map(\.identifier).sorted() == ["early", "early", "late"])
    }

    @Test("removing every request of a plan removes the plan; one-shot members leave after firing")
    func planLifecycle() async throws {
        let system = try NotificationTestSystem(now: instant("2026-01-05T08:00:00Z"))
        let center = try await system.center(for: app)
        try await center.add(daily("repeating", hour: 9))
        try await center.add(
            UNNotificationRequest(
                identifier: "once", content: content("once"),
                trigger: UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: 9), repeats: false)))
        await system.advance(by: 3_600)
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["repeating"])
        center.removeAllPendingNotificationRequests()
        await system.settle(center)
        #expect(try await system.scheduler.store.floatingPlans(dueAfter: .distantPast).isEmpty)
    }
}
