import Foundation
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// A delegate written the pre-concurrency way: completion handlers only.
final class CompletionDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var _log: [String] = []
    var log: [String] { lock.withLock { _log } }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        lock.withLock { _log.append("willPresent \(notification.request.identifier)") }
        completionHandler([.list, .sound])
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        lock.withLock { _log.append("didReceive \(response.actionIdentifier)") }
        completionHandler()
    }
}

/// A delegate that implements nothing.
final class SilentDelegate: NSObject, UNUserNotificationCenterDelegate {}

/// A delegate that never calls its completion handler but keeps it.
final class StuckDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
    var kept: [(UNNotificationPresentationOptions) -> Void] = []
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        kept.append(completionHandler)
    }
}

@Suite("The app's delegate")
struct DelegateTests {
    @Test("the completion-handler forms are called when the app implements them", arguments: NotificationTestSystem.Mode.allCases)
    func completionForms(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        let delegate = CompletionDelegate()
        center.delegate = delegate
        try await center.add(UNNotificationRequest(identifier: "c", content: UNNotificationContent(), trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.first?.options == [.list, .sound])
        try await system.respond(to: "c", app: "com.example.app")
        #expect(delegate.log == ["willPresent c", "didReceive \(UNNotificationDefaultActionIdentifier)"])
    }

    @Test("the async forms are called when the app implements them", arguments: NotificationTestSystem.Mode.allCases)
    func asyncForms(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        let delegate = RecordingDelegate()
        delegate.answer = [.banner]
        center.delegate = delegate
        try await center.add(UNNotificationRequest(identifier: "a", content: UNNotificationContent(), trigger: nil))
        await system.advance(by: 0)
        #expect(delegate.presented.map(\.request.identifier) == ["a"])
        #expect(system.presenter.presentations.first?.options == [.banner])
    }

    @Test("a running app whose delegate gives no answer is not shown, as on iOS; the default is configurable", arguments: NotificationTestSystem.Mode.allCases)
    func noAnswerIsSilent(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        let silent = SilentDelegate()
        center.delegate = silent
        try await center.add(UNNotificationRequest(identifier: "s", content: UNNotificationContent(), trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.isEmpty)
        #expect(try await system.history(app: "com.example.app").first?.outcome == .silenced)
        #expect(await center.deliveredNotifications().isEmpty)

        var configuration = OpenUserNotificationsConfiguration()
        configuration.foregroundPresentationWithoutDelegate = [.banner, .sound]
        let lenient = try NotificationTestSystem(mode: mode, configuration: configuration)
        let other = try await lenient.center(for: "com.example.app")
        other.delegate = silent
        try await other.add(UNNotificationRequest(identifier: "s", content: UNNotificationContent(), trigger: nil))
        await lenient.advance(by: 0)
        #expect(lenient.presenter.presentations.first?.options == [.banner, .sound])
        withExtendedLifetime(silent) {}
    }

    @Test("a delegate that never answers does not stall delivery: the deadline passes and the next request is delivered")
    func stuckDelegate() async throws {
        let system = try NotificationTestSystem()
        let center = try await system.center(for: "com.example.app")
        let delegate = StuckDelegate()
        center.delegate = delegate
        try await center.add(UNNotificationRequest(identifier: "x", content: UNNotificationContent(), trigger: nil))
        let delivery = Task { await system.scheduler.deliverDue() }
        // The engine waits for the answer on the clock; moving the clock past the deadline releases it. Two sleepers:
        // that wait, and the renewal of the claim it holds meanwhile.
        while system.clock.sleeperCount < 2 { await Task.yield() }
        system.clock.advance(by: 10)
        _ = await delivery.value
        #expect(system.presenter.presentations.isEmpty)
        #expect(delegate.kept.count == 1)
    }

    @Test("operations run in call order: a removal is visible to the next read", arguments: NotificationTestSystem.Mode.allCases)
    func ordering(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.app")
        for index in 0..<20 {
            center.add(
                UNNotificationRequest(
                    identifier: "r\(index)", content: UNNotificationContent(),
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)),
                withCompletionHandler: nil)
        }
        center.removePendingNotificationRequests(withIdentifiers: ["r3"])
        let pending = await center.pendingNotificationRequests()
        #expect(pending.count == 19)
        center.removeAllPendingNotificationRequests()
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("apps are isolated: one app's center sees none of another's requests", arguments: NotificationTestSystem.Mode.allCases)
    func isolation(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let first = try await system.center(for: "com.example.first")
        let second = try await system.center(for: "com.example.second")
        try await first.add(UNNotificationRequest(identifier: "mine", content: UNNotificationContent(), trigger: nil))
        #expect(await second.pendingNotificationRequests().isEmpty)
        second.removeAllPendingNotificationRequests()
        #expect(await first.pendingNotificationRequests().count == 1)
    }

    @Test("the testing product builds Apple's closed value types")
    func publicInitializers() {
        let request = UNNotificationRequest(identifier: "r", content: UNNotificationContent(), trigger: nil)
        let notification = UNNotification(testingDate: Date(timeIntervalSince1970: 0), request: request)
        let response = UNTextInputNotificationResponse(testingNotification: notification, actionIdentifier: "reply", userText: "hi")
        #expect(response.userText == "hi" && response.notification.request.identifier == "r")
        let settings = UNNotificationSettings(testingAuthorizationStatus: .denied, setting: .disabled)
        #expect(settings.authorizationStatus == .denied && settings.alertSetting == .disabled)
    }
}

/// Records what a delegate receives (async forms).
final class RecordingDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var _presented: [UNNotification] = []
    var answer: UNNotificationPresentationOptions = [.banner, .sound]
    var presented: [UNNotification] { lock.withLock { _presented } }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        lock.withLock { _presented.append(notification) }
        return answer
    }
}
