import Foundation
import OpenUserNotificationsLegacy
import OpenUserNotificationsTesting
import Testing

@Suite("UILocalNotification over the UN engine", .timeLimit(.minutes(3)))
@MainActor
struct UILocalNotificationTests {
    /// A notification with every property set.
    static func full() -> UILocalNotification {
        let notification = UILocalNotification()
        notification.fireDate = date(2026, 1, 5, 12, 30)
        notification.timeZone = zone("Europe/Paris")
        notification.repeatInterval = .day
        notification.repeatCalendar = Calendar(identifier: .gregorian)
        notification.alertTitle = "Title"
        notification.alertBody = "Body"
        notification.alertAction = "Open the app"
        notification.hasAction = false
        notification.alertLaunchImage = "Default"
        notification.applicationIconBadgeNumber = 3
        notification.soundName = "msg.caf"
        notification.userInfo = ["id": 1234, "user": "Jacob", "nested": ["a": [1, 2]]]
        notification.category = "ALERTCATEGORY"
        return notification
    }

    @Test("every property round-trips through schedule and scheduledLocalNotifications")
    func roundTrip() async throws {
        let harness = try await LegacyHarness()
        let original = Self.full()
        harness.application.scheduleLocalNotification(original)
        original.alertBody = "changed after scheduling"  // the system keeps a copy
        let immediate = try #require(harness.application.scheduledLocalNotifications?.first)
        await harness.application.settle()
        let listed = try #require(harness.application.scheduledLocalNotifications?.first)
        let fetched = try #require(await harness.application.fetchScheduledLocalNotifications().first)
        for notification in [immediate, listed, fetched] {
            #expect(notification.fireDate == date(2026, 1, 5, 12, 30))
            #expect(notification.timeZone == zone("Europe/Paris"))
            #expect(notification.repeatInterval == .day)
            #expect(notification.repeatCalendar?.identifier == .gregorian)
            #expect(notification.alertTitle == "Title")
            #expect(notification.alertBody == "Body")
            #expect(notification.alertAction == "Open the app")
            #expect(notification.hasAction == false)
            #expect(notification.alertLaunchImage == "Default")
            #expect(notification.applicationIconBadgeNumber == 3)
            #expect(notification.soundName == "msg.caf")
            #expect(notification.userInfo?["id"] as? Int == 1234)
            #expect(notification.userInfo?["user"] as? String == "Jacob")
            #expect((notification.userInfo?["nested"] as? [String: Any])?["a"] as? [Int] == [1, 2])
            #expect(notification.userInfo?.count == 3)
            #expect(notification.category == "ALERTCATEGORY")
        }
        original.alertBody = "Body"
        #expect(fetched.isEqual(original))

        // What the UN API sees.
        let request = try #require(await harness.center.pendingNotificationRequests().first)
        #expect(request.content.title == "Title")
        #expect(request.content.body == "Body")
        #expect(request.content.badge == 3)
        #expect(request.content.sound == UNNotificationSound(named: UNNotificationSoundName("msg.caf")))
        #expect(request.content.launchImageName == "Default")
        #expect(request.content.categoryIdentifier == "ALERTCATEGORY")
        let trigger = try #require(request.trigger as? UNCalendarNotificationTrigger)
        #expect(trigger.repeats)
        #expect(trigger.dateComponents.timeZone == nil)  // a zone makes wall-clock time
        #expect(trigger.dateComponents.hour == 13 && trigger.dateComponents.minute == 30)  // 12:30 UTC is 13:30 in Paris
        #expect(trigger.dateComponents.day == nil)
    }

    @Test("the default sound name maps onto the default sound and back; nil plays none")
    func defaultSound() async throws {
        let harness = try await LegacyHarness()
        let withDefault = UILocalNotification()
        withDefault.fireDate = start.addingTimeInterval(60)
        withDefault.soundName = UILocalNotificationDefaultSoundName
        let silent = UILocalNotification()
        silent.fireDate = start.addingTimeInterval(120)
        harness.application.scheduleLocalNotification(withDefault)
        harness.application.scheduleLocalNotification(silent)
        let listed = await harness.application.fetchScheduledLocalNotifications()
        #expect(listed.map(\.soundName) == [UILocalNotificationDefaultSoundName, nil])
        let sounds = await harness.center.pendingNotificationRequests()
            .sorted { $0.content.userInfo.count < $1.content.userInfo.count }.map(\.content.sound)
        #expect(sounds.contains(UNNotificationSound.default))
        #expect(sounds.contains(nil))
    }

    @Test(
        "without a time zone the fire date is a fixed instant; with one it is wall-clock time that follows the zone",
        arguments: [NSCalendar.Unit(), .day])
    func zoneChange(repeatInterval: NSCalendar.Unit) async throws {
        let harness = try await LegacyHarness(timeZone: zone("Europe/Paris"))
        let fixed = UILocalNotification()
        fixed.fireDate = date(2026, 1, 5, 12, 0, in: zone("Europe/Paris"))  // 11:00 UTC
        fixed.repeatInterval = repeatInterval
        fixed.alertBody = "countdown"
        let wallClock = fixed.copy() as! UILocalNotification
        wallClock.timeZone = zone("Europe/Paris")
        wallClock.alertBody = "alarm clock"
        harness.application.scheduleLocalNotification(fixed)
        harness.application.scheduleLocalNotification(wallClock)
        await harness.application.settle()

        try await harness.system.setTimeZone(zone("America/New_York"))  // 12:00 there is 17:00 UTC
        await harness.system.advance(by: date(2026, 1, 6, 17).timeIntervalSince(start) + 1)
        let days = repeatInterval.isEmpty ? [5] : [5, 6]  // a daily repeat keeps its reading on the next day
        #expect(harness.shownBodies == days.flatMap { _ in ["countdown", "alarm clock"] })
        #expect(harness.shownDueDates == days.flatMap { [date(2026, 1, $0, 11), date(2026, 1, $0, 17)] })
        #expect(await harness.application.fetchScheduledLocalNotifications().count == (repeatInterval.isEmpty ? 0 : 2))
    }

    @Test(
        "repeatInterval repeats by calendar unit",
        arguments: [
            (NSCalendar.Unit.minute, date(2026, 1, 5, 9, 0, 15), date(2026, 1, 5, 9, 1, 15)),
            (.hour, date(2026, 1, 5, 9, 30, 15), date(2026, 1, 5, 10, 30, 15)),
            (.day, date(2026, 1, 5, 18), date(2026, 1, 6, 18)),
            (.weekOfYear, date(2026, 1, 7, 8), date(2026, 1, 14, 8)),
            (.month, date(2026, 1, 20, 8), date(2026, 2, 20, 8)),
            (.year, date(2026, 3, 1, 8), date(2027, 3, 1, 8)),
        ])
    func repeatIntervals(unit: NSCalendar.Unit, first: Date, second: Date) async throws {
        let harness = try await LegacyHarness()
        let notification = UILocalNotification()
        notification.fireDate = first
        notification.repeatInterval = unit
        notification.alertBody = "again"
        harness.application.scheduleLocalNotification(notification)
        await harness.application.settle()
        await harness.system.advance(by: second.timeIntervalSince(start) + 1)
        #expect(harness.shownDueDates == [first, second])
        let listed = await harness.application.fetchScheduledLocalNotifications()
        #expect(listed.count == 1)  // a repeating notification stays listed
        #expect(listed.first?.repeatInterval == unit)
    }

    @Test("a one-shot leaves the list when it fires, a repeating one stays")
    func oneShotsLeave() async throws {
        let harness = try await LegacyHarness()
        let delegate = RecordingDelegate()
        await harness.application.launch(delegate: delegate)
        let once = UILocalNotification()
        once.fireDate = start.addingTimeInterval(60)
        once.alertBody = "once"
        let every = UILocalNotification()
        every.fireDate = start.addingTimeInterval(30)
        every.repeatInterval = .minute
        every.alertBody = "every minute"
        harness.application.scheduleLocalNotification(once)
        harness.application.scheduleLocalNotification(every)
        #expect(harness.application.scheduledLocalNotifications?.map(\.alertBody) == ["every minute", "once"])
        // Scheduling returns at once; the requests reach the engine on the center's queue. Moving the clock before
        // they are there would deliver one late or not at all, depending on how the threads happen to run.
        await harness.application.settle()

        await harness.system.advance(by: 61)  // the app is in the foreground: its delegate receives both
        #expect(delegate.received.map(\.alertBody) == ["every minute", "once"])
        await harness.application.settle()
        #expect(harness.application.scheduledLocalNotifications?.map(\.alertBody) == ["every minute"])

        // In the background the fires are shown; the list catches up when the app comes back.
        await harness.application.enterBackground()
        once.fireDate = start.addingTimeInterval(150)
        harness.application.scheduleLocalNotification(once)
        await harness.application.settle()
        await harness.system.advance(by: 120)
        #expect(harness.shownBodies.contains("once"))
        await harness.application.enterForeground()
        #expect(harness.application.scheduledLocalNotifications?.map(\.alertBody) == ["every minute"])
    }

    @Test("a missing or past fire date delivers at once and is not listed")
    func pastFireDate() async throws {
        let harness = try await LegacyHarness()
        let past = UILocalNotification()
        past.fireDate = start.addingTimeInterval(-60)
        past.alertBody = "late"
        harness.application.scheduleLocalNotification(past)
        #expect(harness.application.scheduledLocalNotifications?.isEmpty == true)
        await harness.application.settle()
        #expect(await harness.system.advance(by: 0) == 1)
        #expect(harness.shownBodies == ["late"])
    }

    @Test("cancel one (a listed copy or an equal notification) and cancel all")
    func cancelling() async throws {
        let harness = try await LegacyHarness()
        let application = harness.application
        for minutes in 1...3 {
            let notification = UILocalNotification()
            notification.fireDate = start.addingTimeInterval(Double(minutes) * 60)
            notification.alertBody = "\(minutes)"
            application.scheduleLocalNotification(notification)
        }
        await application.settle()
        application.cancelLocalNotification(try #require(application.scheduledLocalNotifications?.first))
        #expect(application.scheduledLocalNotifications?.map(\.alertBody) == ["2", "3"])

        let equal = UILocalNotification()  // a new object with the same values as "3"
        equal.fireDate = start.addingTimeInterval(180)
        equal.alertBody = "3"
        application.cancelLocalNotification(equal)
        #expect(await application.fetchScheduledLocalNotifications().map(\.alertBody) == ["2"])
        #expect(await harness.center.pendingNotificationRequests().count == 1)

        application.cancelAllLocalNotifications()
        #expect(application.scheduledLocalNotifications?.isEmpty == true)
        await application.settle()
        #expect(await harness.center.pendingNotificationRequests().isEmpty)
        #expect(await harness.system.advance(by: 600) == 0)
    }

    @Test("setting scheduledLocalNotifications replaces them all")
    func replaceAll() async throws {
        let harness = try await LegacyHarness()
        let a = UILocalNotification()
        a.fireDate = start.addingTimeInterval(60)
        a.alertBody = "a"
        harness.application.scheduleLocalNotification(a)
        let b = UILocalNotification()
        b.fireDate = start.addingTimeInterval(120)
        b.alertBody = "b"
        harness.application.scheduledLocalNotifications = [b]
        #expect(await harness.application.fetchScheduledLocalNotifications().map(\.alertBody) == ["b"])
    }

    @Test("presentLocalNotificationNow delivers at once: to the delegate in the foreground, shown in the background")
    func presentNow() async throws {
        let harness = try await LegacyHarness()
        let delegate = RecordingDelegate()
        await harness.application.launch(delegate: delegate)
        let notification = UILocalNotification()
        notification.fireDate = start.addingTimeInterval(3600)  // ignored
        notification.alertBody = "now"
        harness.application.presentLocalNotificationNow(notification)
        #expect(harness.application.scheduledLocalNotifications?.isEmpty == true)
        await harness.application.settle()
        #expect(await harness.system.advance(by: 0) == 0)  // in the foreground nothing is shown…
        #expect(delegate.received.map(\.alertBody) == ["now"])  // …the delegate receives it

        await harness.application.enterBackground()
        harness.application.presentLocalNotificationNow(notification)
        await harness.application.settle()
        #expect(await harness.system.advance(by: 0) == 1)
        #expect(harness.shownBodies == ["now"])
        #expect(delegate.received.count == 1)
    }

    @Test("the system keeps the soonest-firing 64 and ignores the rest (最多只能有64个,超过会被系统忽略)")
    func sixtyFourRule() async throws {
        let harness = try await LegacyHarness()
        let application = harness.application
        // 70 notifications, the latest first, then a repeating one that counts once.
        for minutes in stride(from: 70, through: 1, by: -1) {
            let notification = UILocalNotification()
            notification.fireDate = start.addingTimeInterval(Double(minutes) * 60 + 30)
            notification.alertBody = "\(minutes)"
            application.scheduleLocalNotification(notification)
        }
        #expect(application.scheduledLocalNotifications?.count == 64)
        #expect(application.scheduledLocalNotifications?.map(\.alertBody) == (1...64).map { "\($0)" })
        let repeating = UILocalNotification()
        repeating.fireDate = start.addingTimeInterval(60)
        repeating.repeatInterval = .minute
        repeating.alertBody = "every minute"
        application.scheduleLocalNotification(repeating)  // sooner than all: "64" is ignored now
        let expected = ["every minute"] + (1...63).map { "\($0)" }
        #expect(application.scheduledLocalNotifications?.map(\.alertBody) == expected)
        #expect(await application.fetchScheduledLocalNotifications().map(\.alertBody) == expected)
        #expect(await harness.center.pendingNotificationRequests().count == 64)

        let late = UILocalNotification()
        late.fireDate = start.addingTimeInterval(24 * 3600)
        late.alertBody = "too late"
        application.scheduleLocalNotification(late)  // later than the 64 kept: ignored
        #expect(application.scheduledLocalNotifications?.contains { $0.alertBody == "too late" } == false)
        #expect(await application.fetchScheduledLocalNotifications().count == 64)
    }

    @Test("a region notification maps onto a location trigger")
    func region() async throws {
        let harness = try await LegacyHarness()
        let notification = UILocalNotification()
        notification.region = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35), radius: 100, identifier: "paris")
        notification.regionTriggersOnce = false
        harness.application.scheduleLocalNotification(notification)
        let listed = try #require(await harness.application.fetchScheduledLocalNotifications().first)
        #expect(listed.region?.identifier == "paris")
        #expect(listed.regionTriggersOnce == false)
        let trigger = try #require(await harness.center.pendingNotificationRequests().first?.trigger)
        #expect(trigger is UNLocationNotificationTrigger)
        #expect(trigger.repeats)
    }
}
