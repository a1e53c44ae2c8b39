import Foundation
import OpenUserNotificationsLegacy
import OpenUserNotificationsTesting
import Testing

/// Runs the seed's AppDelegate through its life: first launch (permission, actions, the 10-second notification), the
/// background "忽略" action, a relaunch, a launch from a tap, a fire in the foreground, coming back to the foreground.
@Suite("Seed 003: the legacy AppDelegate listing runs unchanged", .serialized, .timeLimit(.minutes(1)))
@MainActor
struct Seed003AppDelegateTests {
    @Test("the translated AppDelegate registers, schedules, handles actions and launch options")
    func appDelegate() async throws {
        // The delegate uses `Date(timeIntervalSinceNow:)`: the manual clock is kept a minute behind the real time
        // before each launch, and moved to each fire date the delegate chose.
        func realTimeMinusAMinute() -> Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 60) }
        let harness = try await LegacyHarness(now: realTimeMinusAMinute(), authorize: false)
        let clock = harness.system.clock
        func advanceToNextFire() async -> Int {
            let due = await harness.center.pendingNotificationRequests()
                .compactMap { ($0.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate() }.min()
            return await harness.system.advance(by: (due ?? clock.now).timeIntervalSince(clock.now))
        }
        let application = harness.application
        UIApplication.setShared(application)  // the only test that touches `shared`
        #expect(UIApplication.shared === application)
        let suite = "seed003-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        var lines: [String] = []

        func makeDelegate() -> Seed003AppDelegate {
            let delegate = Seed003AppDelegate()
            delegate.defaults = defaults
            delegate.log = { lines.append($0) }
            return delegate
        }

        // First launch: no permission yet, so it registers; didRegister schedules the notification.
        let first = makeDelegate()
        await application.launch(delegate: first)
        await application.settle()
        #expect(lines == ["application(_:didFinishLaunchingWithOptions:)  -- (null)"])
        #expect(application.currentUserNotificationSettings?.types == [.badge, .alert, .sound])
        let scheduled = try #require(application.scheduledLocalNotifications?.first)
        #expect(application.scheduledLocalNotifications?.count == 1)
        #expect(scheduled.alertBody == "最近添加了诸多有趣的特性,是否立即体验?")
        #expect(scheduled.userInfo?["id"] as? Int == 1234 && scheduled.userInfo?["user"] as? String == "Jacob")
        #expect(scheduled.category == "ALERTCATEGORY" && scheduled.soundName == "msg.caf")
        #expect(scheduled.applicationIconBadgeNumber == 1 && scheduled.alertAction == "打开应用")
        let categories = await harness.center.notificationCategories()
        #expect(categories.first?.actions.map(\.identifier) == ["OPENACTIONKEY", "IGNOREKEY"])

        // In the background it fires 10 s later, shown with the two actions; "忽略" runs in the background.
        await application.enterBackground()
        #expect(await advanceToNextFire() == 1)
        let shown = try #require(harness.system.presenter.presentations.first)
        #expect(shown.actionTitles == ["打开应用", "忽略"])
        #expect(harness.system.presenter.badges[harness.app] == 1)
        try await harness.system.respond(to: shown.identifier, app: harness.app, actionIdentifier: "IGNOREKEY")
        #expect(lines.last?.hasPrefix("application(_:handleActionWithIdentifier:for:completionHandler:)  -- ") == true)
        #expect(defaults.string(forKey: "IGNOREKEY") != nil)

        // Relaunched: permission is there, so it schedules at once, and reports the background action.
        await application.terminate()
        clock.set(to: realTimeMinusAMinute())
        lines.removeAll()
        await application.launch(delegate: makeDelegate())
        await application.settle()
        #expect(
            lines == [
                "application(_:didFinishLaunchingWithOptions:)  -- (null)",
                "ActivationModeBackground 的 action 不启动 App 让 App 在 background 下响应",
            ])
        #expect(defaults.string(forKey: "IGNOREKEY") == nil)
        #expect(application.scheduledLocalNotifications?.count == 1)

        // Terminated, the notification fires and the person taps it: the next launch gets it in its options.
        await application.terminate()
        #expect(await advanceToNextFire() == 1)
        let tapped = try #require(harness.system.presenter.presentations.last?.identifier)
        try await harness.system.respond(to: tapped, app: harness.app)
        clock.set(to: realTimeMinusAMinute())
        lines.removeAll()
        let third = makeDelegate()
        await application.launch(delegate: third)
        await application.settle()
        #expect(lines.first?.hasPrefix("application(_:didFinishLaunchingWithOptions:)  -- <UILocalNotification>") == true)
        #expect(lines.first?.contains("最近添加了诸多有趣的特性") == true)

        // Running in the foreground, the notification this launch scheduled goes to didReceive.
        lines.removeAll()
        #expect(await advanceToNextFire() == 0)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("application(_:didReceive:) --- <UILocalNotification>") == true)

        // The "打开应用" action shows its info; coming back lists what is scheduled (a repeating one stays).
        let repeating = UILocalNotification()
        repeating.fireDate = harness.system.clock.now.addingTimeInterval(3600)
        repeating.repeatInterval = .day
        repeating.alertBody = "daily"
        application.scheduleLocalNotification(repeating)
        await application.enterBackground()
        await application.enterForeground()
        #expect(lines.last?.contains("alert body = daily") == true)
        third.removeNotification()
        #expect(lines.last?.contains("alert body = daily") == true)
        application.cancelAllLocalNotifications()
        #expect(application.scheduledLocalNotifications?.isEmpty == true)
        await application.settle()
        #expect(await harness.center.pendingNotificationRequests().isEmpty)
        _ = third
    }
}
