#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
// Apple's UserNotifications re-exports Foundation; OpenUserNotifications does not (yet), so the Foundation names
// below (NSObject, Date, ...) need this line on Linux. It is harmless on Apple platforms.
import Foundation

// Seed 004: a push SDK's guide, "4.3 Action和Category" and "4.4 通知回调" (Objective-C): a category with two
// custom actions and a custom dismiss action, the center's delegate, and its two callbacks. The SDK's own call,
// `[CloudPushSDK handleReceiveRemoteNotification:userInfo]` (the "opened" receipt), has no counterpart and is
// left as a comment. `[UNUserNotificationCenter currentNotificationCenter]` is the default of an injected
// `center`, and `NSLog` the default of an injected `log`.

enum Seed004 {}

extension Seed004 {
    /// The seed's `AppDelegate` in its notification part.
    final class AppDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
        private let center: UNUserNotificationCenter
        private let log: @Sendable (String) -> Void

        init(center: UNUserNotificationCenter = .current(), log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.center = center
            self.log = log
        }

        /// 4.4.1 设置代理: "一般是在AppDelegate中实现" (the seed elides the surrounding method).
        func application(didFinishLaunchingWithOptions launchOptions: [AnyHashable: Any]?) -> Bool {
            createCustomNotificationCategory()
            center.delegate = self
            return true
        }

        /// 4.3: 创建并注册通知category(iOS 10+)
        func createCustomNotificationCategory() {
            // 自定义`action1`和`action2`
            let action1 = UNNotificationAction(identifier: "action1", title: "test1", options: [])
            let action2 = UNNotificationAction(identifier: "action2", title: "test2", options: [])
            // 创建id为`test_category`的category,并注册两个action到category
            // UNNotificationCategoryOptionCustomDismissAction表明可以触发通知的dismiss回调
            let category = UNNotificationCategory(
                identifier: "test_category", actions: [action1, action2], intentIdentifiers: [],
                options: .customDismissAction)
            // 注册category到通知中心
            center.setNotificationCategories([category])
        }

        /// 4.4.2: 处理iOS 10通知(iOS 10+)
        func handleiOS10Notification(_ notification: UNNotification) {
            let request = notification.request
            let content = request.content
            let userInfo = content.userInfo
            // 通知时间
            let noticeDate = notification.date
            // 标题
            let title = content.title
            // 副标题
            let subtitle = content.subtitle
            // 内容
            let body = content.body
            // 角标
            let badge = content.badge?.intValue ?? 0
            // 取得通知自定义字段内容,例:获取key为"Extras"的内容
            let extras = userInfo["Extras"] as? String
            // 通知打开回执上报
            // CloudPushSDK.handleReceiveRemoteNotification(userInfo)  (the push SDK's call; no counterpart)
            log(
                "Notification, date: \(noticeDate), title: \(title), subtitle: \(subtitle), body: \(body), "
                    + "badge: \(badge), extras: \(extras ?? "(null)").")
        }

        /// 4.4.2: App处于前台时收到通知(iOS 10+)
        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            log("Receive a notification in foregound.")
            // 处理iOS 10通知相关字段信息
            handleiOS10Notification(notification)
            // 通知不弹出
            // completionHandler([])
            // 通知弹出,且带有声音、内容和角标(App处于前台时不建议弹出通知)
            // (`.alert`, deprecated since iOS 14, is `.banner` and `.list` today.)
            completionHandler([.sound, .banner, .list, .badge])
        }

        /// 4.4.3: 触发通知动作时回调,比如点击、删除通知和点击自定义action(iOS 10+)
        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            let userAction = response.actionIdentifier
            // 点击通知打开
            if userAction == UNNotificationDefaultActionIdentifier {
                log("User opened the notification.")
                // 处理iOS 10通知,并上报通知打开回执
                handleiOS10Notification(response.notification)
            }
            // 通知dismiss,category创建时传入UNNotificationCategoryOptionCustomDismissAction才可以触发
            if userAction == UNNotificationDismissActionIdentifier {
                log("User dismissed the notification.")
            }
            let customAction1 = "action1"
            let customAction2 = "action2"
            // 点击用户自定义Action1
            if userAction == customAction1 {
                log("User custom action1.")
            }
            // 点击用户自定义Action2
            if userAction == customAction2 {
                log("User custom action2.")
            }
            completionHandler()
        }
    }
}

// MARK: - Tests

import OpenUserNotificationsTesting
import Testing

@Suite("Seed 004: a custom category and the two delegate callbacks", .timeLimit(.minutes(1)))
struct Seed004ActionsAndCallbacksTests {
    let app = "com.example.push"
    let system: NotificationTestSystem
    let log = PrintLog()

    init() throws {
        system = try NotificationTestSystem()
    }

    /// Launches the app and waits until its category and delegate are registered.
    private func launch(_ center: UNUserNotificationCenter) async -> Seed004.AppDelegate {
        let appDelegate = Seed004.AppDelegate(center: center, log: log.record)
        #expect(appDelegate.application(didFinishLaunchingWithOptions: nil))
        await system.settle(center)
        return appDelegate
    }

    /// A notification in `test_category` with the fields `handleiOS10Notification` reads, one minute from now.
    private func scheduleNews(_ identifier: String, center: UNUserNotificationCenter, extras: String? = "42") async throws {
        let content = UNMutableNotificationContent()
        content.title = "News"
        content.subtitle = "Today"
        content.body = "Something happened"
        content.badge = 3
        content.sound = .default
        content.categoryIdentifier = "test_category"
        if let extras { content.userInfo = ["Extras": extras] }
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
        try await center.add(UNNotificationRequest(identifier: identifier, content: content, trigger: trigger))
    }

    private let handledLine =
        "Notification, date: 2026-01-05 09:01:00 +0000, title: News, subtitle: Today, body: Something happened, "
        + "badge: 3, extras: 42."

    @Test("4.3: test_category holds action1 and action2 and sends dismissals")
    func category() async throws {
        let center = try await system.center(for: app)
        let appDelegate = await launch(center)

        let categories = await center.notificationCategories()
        let category = try #require(categories.first)
        #expect(categories.count == 1)
        #expect(category.identifier == "test_category")
        #expect(category.options == .customDismissAction)
        #expect(category.actions.map(\.identifier) == ["action1", "action2"])
        #expect(category.actions.map(\.title) == ["test1", "test2"])
        #expect(category.actions.allSatisfy { $0.options == [] })
        #expect(center.delegate === appDelegate)
    }

    @Test("4.4.2: in the foreground willPresent reads the fields and shows the notification with sound and badge")
    func foreground() async throws {
        let center = try await system.center(for: app)
        let appDelegate = await launch(center)
        try await scheduleNews("news", center: center)

        #expect(await system.advance(by: 60) == 1)
        #expect(log.lines == ["Receive a notification in foregound.", handledLine])
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.options == [.sound, .banner, .list, .badge])
        #expect(shown.actionTitles == ["test1", "test2"])
        #expect(system.presenter.badges[app] == 3)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["news"])
        withExtendedLifetime(appDelegate) {}
    }

    @Test("4.4.2: a notification without Extras logs (null), as NSLog prints nil")
    func foregroundWithoutExtras() async throws {
        let center = try await system.center(for: app)
        let appDelegate = await launch(center)
        try await scheduleNews("news", center: center, extras: nil)
        await system.advance(by: 60)
        #expect(log.lines.last?.hasSuffix("badge: 3, extras: (null).") == true)
        withExtendedLifetime(appDelegate) {}
    }

    @Test(
        "4.4.3: didReceive tells a tap, a dismissal and each custom action apart",
        arguments: [
            (UNNotificationDefaultActionIdentifier, ["User opened the notification."]),
            (UNNotificationDismissActionIdentifier, ["User dismissed the notification."]),
            ("action1", ["User custom action1."]),
            ("action2", ["User custom action2."]),
        ])
    func responses(action: String, expected: [String]) async throws {
        let center = try await system.center(for: app)
        let appDelegate = await launch(center)
        try await scheduleNews("news", center: center)
        await system.advance(by: 60)
        let arrival = log.lines

        #expect(try await system.respond(to: "news", app: app, actionIdentifier: action))
        let answered = Array(log.lines.dropFirst(arrival.count))
        if action == UNNotificationDefaultActionIdentifier {
            #expect(answered == expected + [handledLine])
        } else {
            #expect(answered == expected)
        }
        #expect(await center.deliveredNotifications().isEmpty)
        let entry = try #require(try await system.history(app: app).first)
        #expect(entry.outcome == (action == UNNotificationDismissActionIdentifier ? .dismissed : .action))
        withExtendedLifetime(appDelegate) {}
    }

    @Test("4.4.3: without customDismissAction a dismissal does not reach the app")
    func dismissWithoutCustomDismissAction() async throws {
        let center = try await system.center(for: app)
        let appDelegate = await launch(center)
        // The same category registered without the option.
        let action1 = UNNotificationAction(identifier: "action1", title: "test1", options: [])
        center.setNotificationCategories([
            UNNotificationCategory(identifier: "test_category", actions: [action1], intentIdentifiers: [], options: [])
        ])
        try await scheduleNews("news", center: center)
        await system.advance(by: 60)
        let arrival = log.lines.count

        #expect(try await system.respond(to: "news", app: app, actionIdentifier: UNNotificationDismissActionIdentifier) == false)
        #expect(log.lines.count == arrival)
        #expect(await center.deliveredNotifications().isEmpty)
        withExtendedLifetime(appDelegate) {}
    }
}
