import Foundation
import OpenUserNotificationsLegacy
import OpenUserNotificationsTesting
import Testing

@Suite("Actions, categories and delegate callbacks", .timeLimit(.minutes(1)))
@MainActor
struct ActionsAndDelegateTests {
    static func category() -> UIMutableUserNotificationCategory {
        let open = UIMutableUserNotificationAction()
        open.identifier = "OPEN"
        open.title = "Open"
        open.activationMode = .foreground
        let ignore = UIMutableUserNotificationAction()
        ignore.identifier = "IGNORE"
        ignore.title = "Ignore"
        ignore.activationMode = .background
        ignore.isAuthenticationRequired = true
        ignore.isDestructive = true
        let reply = UIMutableUserNotificationAction()
        reply.identifier = "REPLY"
        reply.title = "Reply"
        reply.behavior = .textInput
        reply.parameters = [UIUserNotificationTextInputActionButtonTitleKey: "Send"]
        let category = UIMutableUserNotificationCategory()
        category.identifier = "MESSAGE"
        category.setActions([open, ignore, reply], for: .default)
        category.setActions([open, ignore], for: .minimal)
        return category
    }

    @Test("registering settings asks for permission, maps actions and categories, and calls didRegister")
    func registration() async throws {
        let harness = try await LegacyHarness(authorize: false)
        let delegate = RecordingDelegate()
        await harness.application.launch(delegate: delegate)
        #expect(harness.application.currentUserNotificationSettings == nil)

        harness.application.registerUserNotificationSettings(
            UIUserNotificationSettings(types: [.alert, .sound], categories: [Self.category()]))
        await harness.application.settle()
        #expect(delegate.registered.map(\.types) == [[.alert, .sound]])
        let current = try #require(harness.application.currentUserNotificationSettings)
        #expect(current.types == [.alert, .sound])
        let category = try #require(current.categories?.first)
        #expect(category.identifier == "MESSAGE")
        let actions = try #require(category.actions(for: .default))
        #expect(actions.map(\.identifier) == ["OPEN", "IGNORE", "REPLY"])
        #expect(actions.map(\.activationMode) == [.foreground, .background, .background])
        #expect(actions.map(\.isDestructive) == [false, true, false])
        #expect(actions.map(\.isAuthenticationRequired) == [true, true, false])
        #expect(actions.map(\.behavior) == [.default, .default, .textInput])
        #expect(actions[2].parameters[UIUserNotificationTextInputActionButtonTitleKey] as? String == "Send")

        let unCategory = try #require(await harness.center.notificationCategories().first)
        #expect(unCategory.identifier == "MESSAGE")
        #expect(unCategory.actions.map(\.options) == [[.foreground, .authenticationRequired], [.destructive, .authenticationRequired], []])
        let textInput = try #require(unCategory.actions[2] as? UNTextInputNotificationAction)
        #expect(textInput.textInputButtonTitle == "Send")
        let settings = await harness.center.notificationSettings()
        #expect(settings.alertSetting == .enabled && settings.soundSetting == .enabled && settings.badgeSetting == .disabled)
    }

    @Test("a fire in the foreground goes to didReceive; actions and typed text go to handleActionWithIdentifier")
    func callbacks() async throws {
        let harness = try await LegacyHarness()
        let delegate = RecordingDelegate()
        let application = harness.application
        await application.launch(delegate: delegate)
        application.registerUserNotificationSettings(
            UIUserNotificationSettings(types: [.alert, .sound, .badge], categories: [Self.category()]))
        let notification = UILocalNotification()
        notification.fireDate = start.addingTimeInterval(60)
        notification.alertBody = "hello"
        notification.category = "MESSAGE"
        notification.userInfo = ["thread": 7]
        application.scheduleLocalNotification(notification)
        await application.settle()

        #expect(await harness.system.advance(by: 60) == 0)  // foreground: not shown
        #expect(delegate.received.map(\.alertBody) == ["hello"])
        #expect(delegate.received.first?.userInfo?["thread"] as? Int == 7)

        // In the background the notification is shown with the category's actions; answers still reach the app.
        await application.enterBackground()
        notification.fireDate = start.addingTimeInterval(120)
        application.scheduleLocalNotification(notification)
        await application.settle()
        #expect(await harness.system.advance(by: 60) == 1)
        #expect(harness.system.presenter.presentations.first?.actionTitles == ["Open", "Ignore", "Reply"])
        let shown = try #require(harness.system.presenter.presentations.first?.identifier)
        try await harness.system.respond(to: shown, app: harness.app, actionIdentifier: "REPLY", text: "on my way")
        #expect(delegate.actions.map(\.identifier) == ["REPLY"])
        #expect(delegate.actions.first?.responseInfo[UIUserNotificationActionResponseTypedTextKey] as? String == "on my way")
        #expect(delegate.actions.first?.notification.alertBody == "hello")

        await application.enterForeground()
        #expect(
            delegate.events == [
                "didFinishLaunching", "didBecomeActive", "didRegister", "didReceive hello", "didEnterBackground",
                "handleAction REPLY", "willEnterForeground", "didBecomeActive",
            ])
    }

    @Test("the notification whose tap launched the app is in launchOptions[.localNotification]")
    func launchOptions() async throws {
        let harness = try await LegacyHarness()
        let first = RecordingDelegate()
        await harness.application.launch(delegate: first)
        let notification = UILocalNotification()
        notification.fireDate = start.addingTimeInterval(60)
        notification.alertBody = "tap me"
        harness.application.scheduleLocalNotification(notification)
        await harness.application.terminate()
        #expect(await harness.system.advance(by: 60) == 1)
        let shown = try #require(harness.system.presenter.presentations.first?.identifier)
        try await harness.system.respond(to: shown, app: harness.app)  // not running: kept for the next launch

        let second = RecordingDelegate()
        await harness.application.launch(delegate: second)
        let launched = try #require(second.launchOptions?[.localNotification] as? UILocalNotification)
        #expect(launched.alertBody == "tap me")
        #expect(launched.isEqual(notification))
        #expect(second.received.isEmpty)
        #expect(first.events.last == "willTerminate")
    }
}
