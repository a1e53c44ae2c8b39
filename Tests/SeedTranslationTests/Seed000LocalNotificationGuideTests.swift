#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
// Apple's UserNotifications re-exports Foundation; OpenUserNotifications does not (yet), so the Foundation names
// below (NSObject, NSString, DateComponents, ...) need this line on Linux. It is harmless on Apple platforms.
import Foundation

// Seed 000: "调度和处理本地通知", a Chinese translation of Apple's "Scheduling and Handling Local Notifications"
// (Local and Remote Notification Programming Guide), listings 3-1 to 3-6 in Objective-C, translated to Swift.
// `[UNUserNotificationCenter currentNotificationCenter]` is the default of an injected `center`, and `NSLog`
// the default of an injected `log`.

enum Seed000 {}

extension Seed000 {
    // MARK: Listing 3-1: creating and configuring a local notification

    /// Listing 3-1: an alert for the next time the clock reaches 7:00.
    static func makeMorningAlarmRequest() -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = NSString.localizedUserNotificationString(forKey: "Wake up!", arguments: nil)
        content.body = NSString.localizedUserNotificationString(
            forKey: "Rise and shine! It's morning time!",
            arguments: nil)

        // Configure the trigger for a 7am wakeup.
        var date = DateComponents()
        date.hour = 7
        date.minute = 0
        let trigger = UNCalendarNotificationTrigger(dateMatching: date, repeats: false)

        // Create the request object.
        let request = UNNotificationRequest(identifier: "MorningAlarm", content: content, trigger: trigger)
        return request
    }

    // MARK: Listing 3-2: a category for a local notification

    /// Listing 3-2. The listing allocates an immutable `UNNotificationContent` and assigns its read-only
    /// `categoryIdentifier`, which does not compile; the mutable class is what it means.
    static func makeTimerExpiredContent() -> UNNotificationContent {
        let content = UNMutableNotificationContent()
        // Configure the content. . .

        // Assign the category (and the associated actions).
        content.categoryIdentifier = "TIMER_EXPIRED"

        // Create the request and schedule the notification.
        return content
    }

    // MARK: Adding a sound to the content

    /// "要播放默认声音": the default sound.
    static func playDefaultSound(_ content: UNMutableNotificationContent) {
        content.sound = .default
    }

    /// "当指定自定义声音,仅指定你想要播放的声音文件的文件名": a sound file by name.
    static func playCustomSound(_ content: UNMutableNotificationContent) {
        content.sound = UNNotificationSound(named: UNNotificationSoundName("MySound.aiff"))
    }

    // MARK: Listing 3-3: scheduling a local notification for delivery

    /// Listing 3-3: schedules listing 3-1's request.
    static func scheduleMorningAlarm(
        center: UNUserNotificationCenter = .current(),
        log: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        // Create the request object.
        let request = makeMorningAlarmRequest()

        center.add(request) { error in
            if let error = error {
                log(error.localizedDescription)
            }
        }
    }

    /// "要在发送单个通知之前取消它或取消重复通知,请调用 removePendingNotificationRequestsWithIdentifiers:".
    static func cancelMorningAlarm(center: UNUserNotificationCenter = .current()) {
        center.removePendingNotificationRequests(withIdentifiers: ["MorningAlarm"])
    }

    /// "要取消所有挂起的本地通知 ... 请调用 removeAllPendingNotificationRequests 方法".
    static func cancelAllAlarms(center: UNUserNotificationCenter = .current()) {
        center.removeAllPendingNotificationRequests()
    }

    /// "您仍然可以使用 ... getDeliveredNotificationsWithCompletionHandler: 方法确定是否传递了通知": whether the
    /// morning alarm was delivered while the app was not in the foreground.
    static func wasMorningAlarmDelivered(
        center: UNUserNotificationCenter = .current(), completion: @escaping @Sendable (Bool) -> Void
    ) {
        center.getDeliveredNotifications { notifications in
            completion(notifications.contains { $0.request.identifier == "MorningAlarm" })
        }
    }

    /// The removal that goes with the delivered list (not in the seed's text, which stops at reading the list).
    static func clearMorningAlarm(center: UNUserNotificationCenter = .current()) {
        center.removeDeliveredNotifications(withIdentifiers: ["MorningAlarm"])
    }

    // MARK: Listings 3-4 and 3-5: a timer app's delegate

    /// The delegate of the guide's timer app: listing 3-4 (`willPresent`) and listing 3-5 (`didReceive`).
    final class TimerAppDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
        /// How long a snooze lasts. The listing leaves "create a new one" open.
        static let snoozeInterval: TimeInterval = 5 * 60

        private let log: @Sendable (String) -> Void

        init(log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.log = log
        }

        /// Listing 3-4: playing a sound while the app is in the foreground.
        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            // Update the app interface directly.

            // Play a sound.
            completionHandler(.sound)
        }

        /// Listing 3-5: handling the custom actions of the timer app's categories.
        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            if response.notification.request.content.categoryIdentifier == "TIMER_EXPIRED" {
                // Handle the actions for the expired timer.
                if response.actionIdentifier == "SNOOZE_ACTION" {
                    // Invalidate the old timer and create a new one. . .
                    let expired = response.notification.request
                    let trigger = UNTimeIntervalNotificationTrigger(timeInterval: Self.snoozeInterval, repeats: false)
                    let snoozed = UNNotificationRequest(identifier: expired.identifier, content: expired.content, trigger: trigger)
                    let log = self.log
                    center.add(snoozed) { error in
                        log(error.map { "Could not snooze: \($0.localizedDescription)" } ?? "Snoozed \(expired.identifier)")
                    }
                } else if response.actionIdentifier == "STOP_ACTION" {
                    // Invalidate the timer. . .
                    center.removePendingNotificationRequests(withIdentifiers: [response.notification.request.identifier])
                    log("Stopped \(response.notification.request.identifier)")
                }
            }

            // Else handle actions for other notification types. . .

            // The listing ends without this call, which Apple's documentation requires.
            completionHandler()
        }
    }

    // MARK: Listing 3-6: handling the standard system actions

    /// Listing 3-6. Like the listing, it never calls `completionHandler`; the system must cope.
    final class StandardActionsDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
        private let log: @Sendable (String) -> Void

        init(log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.log = log
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter,
            didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            if response.actionIdentifier == UNNotificationDismissActionIdentifier {
                // The user dismissed the notification without taking action.
                log("The user dismissed \(response.notification.request.identifier)")
            } else if response.actionIdentifier == UNNotificationDefaultActionIdentifier {
                // The user launched the app.
                log("The user launched the app from \(response.notification.request.identifier)")
            }

            // Else handle any custom actions. . .
        }
    }
}

// MARK: - Tests

import OpenUserNotificationsTesting
import Testing

@Suite("Seed 000: Apple's local notification guide, listings 3-1 to 3-6", .timeLimit(.minutes(1)))
struct Seed000LocalNotificationGuideTests {
    let app = "com.example.timer"
    let system: NotificationTestSystem
    let log = PrintLog()

    init() throws {
        system = try NotificationTestSystem()
    }

    /// The categories listing 3-2 refers to: listing 2-3 of Apple's guide, which the seed does not include.
    private func registerTimerCategories(_ center: UNUserNotificationCenter) {
        let general = UNNotificationCategory(
            identifier: "GENERAL", actions: [], intentIdentifiers: [], options: [.customDismissAction])
        let snooze = UNNotificationAction(identifier: "SNOOZE_ACTION", title: "Snooze", options: [])
        let stop = UNNotificationAction(identifier: "STOP_ACTION", title: "Stop", options: [.foreground])
        let expired = UNNotificationCategory(
            identifier: "TIMER_EXPIRED", actions: [snooze, stop], intentIdentifiers: [], options: [])
        center.setNotificationCategories([general, expired])
    }

    /// A 25-minute timer whose expiry uses listing 3-2's content.
    private func startTimer(_ identifier: String, center: UNUserNotificationCenter) async throws {
        let content = try #require(Seed000.makeTimerExpiredContent().mutableCopy() as? UNMutableNotificationContent)
        content.title = "Time's up"
        Seed000.playDefaultSound(content)
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 25 * 60, repeats: false)
        try await center.add(UNNotificationRequest(identifier: identifier, content: content, trigger: trigger))
    }

    @Test("listing 3-1 builds a one-shot 7:00 calendar request with localized title and body")
    func morningAlarmRequest() throws {
        let request = Seed000.makeMorningAlarmRequest()
        #expect(request.identifier == "MorningAlarm")
        // No Localizable.strings in the test bundle: the key is the string.
        #expect(request.content.title == "Wake up!")
        #expect(request.content.body == "Rise and shine! It's morning time!")
        let trigger = try #require(request.trigger as? UNCalendarNotificationTrigger)
        #expect(trigger.dateComponents == DateComponents(hour: 7, minute: 0))
        #expect(!trigger.repeats)
    }

    @Test("listing 3-3 schedules the alarm for the next 7:00, which fires once")
    func morningAlarmFiresOnce() async throws {
        let center = try await system.center(for: app)
        Seed000.scheduleMorningAlarm(center: center, log: log.record)
        await system.settle(center)

        let pending = await center.pendingNotificationRequests()
        #expect(pending.map(\.identifier) == ["MorningAlarm"])
        let trigger = try #require(pending.first?.trigger as? UNCalendarNotificationTrigger)
        // The test system starts on Monday 2026-01-05 at 9:00 UTC, past 7:00.
        #expect(trigger.nextTriggerDate() == utcDate(2026, 1, 6, 7))

        #expect(await system.advance(by: 22 * 3600 - 1) == 0)
        #expect(await system.advance(by: 1) == 1)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.identifier == "MorningAlarm")
        #expect(shown.title == "Wake up!")
        #expect(shown.body == "Rise and shine! It's morning time!")
        #expect(shown.date == utcDate(2026, 1, 6, 7))

        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await system.advance(by: 7 * 24 * 3600) == 0)
        #expect(log.lines.isEmpty)
    }

    @Test("listing 3-3 logs the error when notifications are not allowed")
    func scheduleLogsError() async throws {
        let system = try NotificationTestSystem(configuration: OpenUserNotificationsConfiguration(authorizationPolicy: .deny))
        let center = try await system.center(for: app, authorize: false)
        #expect(try await center.requestAuthorization(options: [.alert]) == false)

        Seed000.scheduleMorningAlarm(center: center, log: log.record)
        await system.settle(center)
        #expect(log.lines.count == 1)
        #expect(log.lines.first?.contains("not allowed") == true)
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("listing 3-2 and the sound examples set the category and the sound")
    func categoryAndSounds() async throws {
        let content = Seed000.makeTimerExpiredContent()
        #expect(content.categoryIdentifier == "TIMER_EXPIRED")

        let mutable = UNMutableNotificationContent()
        Seed000.playDefaultSound(mutable)
        #expect(mutable.sound == .default)
        Seed000.playCustomSound(mutable)
        #expect(mutable.sound == UNNotificationSound(named: UNNotificationSoundName("MySound.aiff")))

        // The sound survives the trip through the store.
        let center = try await system.center(for: app)
        try await center.add(UNNotificationRequest(identifier: "custom", content: mutable, trigger: nil))
        let pending = await center.pendingNotificationRequests()
        let delivered = await center.deliveredNotifications()
        let stored = try #require((pending.map(\.content) + delivered.map(\.request.content)).first)
        #expect(stored.sound == UNNotificationSound(named: UNNotificationSoundName("MySound.aiff")))
    }

    @Test("removing pending requests: one by identifier, then all")
    func removingPending() async throws {
        let center = try await system.center(for: app)
        Seed000.scheduleMorningAlarm(center: center, log: log.record)
        try await startTimer("tea", center: center)
        try await startTimer("pasta", center: center)
        #expect(Set(await center.pendingNotificationRequests().map(\.identifier)) == ["MorningAlarm", "tea", "pasta"])

        Seed000.cancelMorningAlarm(center: center)
        await system.settle(center)
        #expect(Set(await center.pendingNotificationRequests().map(\.identifier)) == ["tea", "pasta"])

        Seed000.cancelAllAlarms(center: center)
        await system.settle(center)
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await system.advance(by: 2 * 24 * 3600) == 0)
    }

    @Test("delivered notifications: reading the list, then removing one from it and from the screen")
    func removingDelivered() async throws {
        let center = try await system.center(for: app)
        Seed000.scheduleMorningAlarm(center: center, log: log.record)
        try await startTimer("tea", center: center)

        let before = await withCheckedContinuation { continuation in
            Seed000.wasMorningAlarmDelivered(center: center) { continuation.resume(returning: $0) }
        }
        #expect(!before)

        await system.advance(by: 22 * 3600)
        #expect(Set(await center.deliveredNotifications().map(\.request.identifier)) == ["MorningAlarm", "tea"])
        let after = await withCheckedContinuation { continuation in
            Seed000.wasMorningAlarmDelivered(center: center) { continuation.resume(returning: $0) }
        }
        #expect(after)

        Seed000.clearMorningAlarm(center: center)
        await system.settle(center)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["tea"])
        #expect(system.presenter.withdrawn == ["MorningAlarm"])
        let history = try await system.history(app: app)
        #expect(history.first { $0.requestIdentifier == "MorningAlarm" }?.outcome == .removed)

        center.removeAllDeliveredNotifications()
        await system.settle(center)
        #expect(await center.deliveredNotifications().isEmpty)
    }

    @Test("listing 3-4: in the foreground the timer only plays a sound")
    func foregroundSoundOnly() async throws {
        let center = try await system.center(for: app)
        registerTimerCategories(center)
        let delegate = Seed000.TimerAppDelegate(log: log.record)
        center.delegate = delegate
        await system.settle(center)

        try await startTimer("tea", center: center)
        #expect(await system.advance(by: 25 * 60) == 0)  // nothing on screen

        let played = try #require(system.presenter.presentations.first)
        #expect(system.presenter.presentations.count == 1)
        #expect(played.identifier == "tea")
        #expect(played.options == [.sound])
        #expect(await center.deliveredNotifications().isEmpty)
        let history = try await system.history(app: app)
        #expect(history.map(\.outcome) == [.silenced])
        #expect(history.first?.presenter == "recording")
        withExtendedLifetime(delegate) {}
    }

    @Test("listing 3-5: Snooze, chosen while the app was in the background, starts a new timer")
    func snooze() async throws {
        let center = try await system.center(for: app)
        registerTimerCategories(center)
        try await startTimer("tea", center: center)
        await system.advance(by: 25 * 60)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.actionTitles == ["Snooze", "Stop"])

        #expect(try await system.respond(to: "tea", app: app, actionIdentifier: "SNOOZE_ACTION"))
        // The app starts and sets its delegate: the answer is handed to it.
        let delegate = Seed000.TimerAppDelegate(log: log.record)
        center.delegate = delegate
        await log.wait(for: "Snoozed tea")

        let pending = await center.pendingNotificationRequests()
        let request = try #require(pending.first)
        #expect(pending.count == 1)
        #expect(request.identifier == "tea")
        #expect(request.content.title == "Time's up")
        #expect(request.content.categoryIdentifier == "TIMER_EXPIRED")
        let trigger = try #require(request.trigger as? UNTimeIntervalNotificationTrigger)
        #expect(trigger.nextTriggerDate() == testSystemStart.addingTimeInterval(25 * 60 + 5 * 60))

        // Five minutes later it goes off again, in the foreground now: a sound only (listing 3-4).
        await system.advance(by: 5 * 60)
        #expect(system.presenter.presentations.map(\.options) == [shown.options, [.sound]])
        withExtendedLifetime(delegate) {}
    }

    @Test("listing 3-5: Stop ends the timer; actions of other categories are left alone")
    func stop() async throws {
        let center = try await system.center(for: app)
        registerTimerCategories(center)
        try await startTimer("tea", center: center)
        let other = UNMutableNotificationContent()
        other.title = "Hello"
        other.categoryIdentifier = "GENERAL"
        try await center.add(UNNotificationRequest(identifier: "hello", content: other, trigger: nil))
        await system.advance(by: 25 * 60)

        #expect(try await system.respond(to: "hello", app: app))
        #expect(try await system.respond(to: "tea", app: app, actionIdentifier: "STOP_ACTION"))
        let delegate = Seed000.TimerAppDelegate(log: log.record)
        center.delegate = delegate
        await system.settle(center)

        #expect(log.lines == ["Stopped tea"])
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await center.deliveredNotifications().isEmpty)
        withExtendedLifetime(delegate) {}
    }

    @Test("listing 3-6's app has no willPresent, so in the foreground nothing is shown")
    func standardActionsForeground() async throws {
        let center = try await system.center(for: app)
        registerTimerCategories(center)
        let delegate = Seed000.StandardActionsDelegate(log: log.record)
        center.delegate = delegate
        await system.settle(center)

        for identifier in ["news", "weather"] {
            let content = UNMutableNotificationContent()
            content.title = identifier
            content.categoryIdentifier = "GENERAL"
            try await center.add(UNNotificationRequest(identifier: identifier, content: content, trigger: nil))
        }
        // The delegate has no willPresent: in the foreground nothing is shown, as on Apple platforms.
        #expect(await system.advance(by: 0) == 0)
        #expect(await center.deliveredNotifications().isEmpty)
        #expect(try await system.history(app: app).map(\.outcome) == [.silenced, .silenced])
        withExtendedLifetime(delegate) {}
    }

    @Test("listing 3-6 tells a tap from a dismissal, though it never calls its completion handler")
    func standardActionsAfterLaunch() async throws {
        let center = try await system.center(for: app)
        registerTimerCategories(center)
        for identifier in ["news", "weather"] {
            let content = UNMutableNotificationContent()
            content.title = identifier
            content.categoryIdentifier = "GENERAL"
            try await center.add(UNNotificationRequest(identifier: identifier, content: content, trigger: nil))
        }
        #expect(await system.advance(by: 0) == 2)

        #expect(try await system.respond(to: "news", app: app))
        // GENERAL has .customDismissAction, so the dismissal goes to the app too.
        #expect(try await system.respond(to: "weather", app: app, actionIdentifier: UNNotificationDismissActionIdentifier))

        let delegate = Seed000.StandardActionsDelegate(log: log.record)
        center.delegate = delegate
        await system.settle(center)
        #expect(log.lines == ["The user launched the app from news", "The user dismissed weather"])
        withExtendedLifetime(delegate) {}
    }
}
