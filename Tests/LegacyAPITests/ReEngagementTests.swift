import Foundation
import OpenUserNotificationsLegacy
import OpenUserNotificationsTesting
import Testing

// The seed's "简单场景模拟" through the legacy API, as Examples/ReEngagement runs it:
//
//     一般的工具型APP会包含多个本地通知,分别设置不同的fireDate。如3天,7天,一个月分别推送一次,以唤醒用户。
//     若一个月之内打开APP,则所有本地通知重置。
//     //模拟需求:这里以设置1Min和3Min的本地通知为例

/// Reminders at 1 and 3 minutes, all reset whenever the app opens (launch or coming back).
@MainActor
final class ReEngagementDelegate: UIResponder, UIApplicationDelegate {
    static let intervals: [TimeInterval] = [60, 180]
    /// The current time; the test reads the manual clock.
    var now: () -> Date = Date.init

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        resetReminders(application)
        return true
    }

    func applicationWillEnterForeground(_ application: UIApplication) {
        resetReminders(application)
    }

    func resetReminders(_ application: UIApplication) {
        application.cancelAllLocalNotifications()
        for interval in Self.intervals {
            let notification = UILocalNotification()
            notification.fireDate = now().addingTimeInterval(interval)
            notification.alertBody = "最近添加了诸多有趣的特性,是否立即体验?"
            notification.soundName = UILocalNotificationDefaultSoundName
            notification.userInfo = ["reminder": Int(interval)]
            application.scheduleLocalNotification(notification)
        }
    }
}

@Suite("Seed 003: re-engagement reminders through the legacy API", .timeLimit(.minutes(1)))
@MainActor
struct ReEngagementTests {
    private func fireDates(_ application: UIApplication) -> [Date] {
        (application.scheduledLocalNotifications ?? []).compactMap(\.fireDate)
    }

    @Test("reopening before a minute fires nothing and sets both reminders again")
    func reopenResets() async throws {
        let harness = try await LegacyHarness()
        let application = harness.application
        let delegate = ReEngagementDelegate()
        let clock = harness.system.clock
        delegate.now = { clock.now }
        await application.launch(delegate: delegate)
        #expect(fireDates(application) == [start.addingTimeInterval(60), start.addingTimeInterval(180)])
        await application.enterBackground()
        #expect(await harness.system.advance(by: 50) == 0)

        await application.enterForeground()
        #expect(fireDates(application) == [start.addingTimeInterval(110), start.addingTimeInterval(230)])
        await application.settle()
        #expect(await harness.center.pendingNotificationRequests().count == 2)
        await application.enterBackground()
        #expect(await harness.system.advance(by: 59) == 0)
        #expect(await harness.system.advance(by: 1) == 1)
        #expect(harness.shownDueDates == [start.addingTimeInterval(110)])
    }

    @Test("staying away, the 1-minute then the 3-minute reminder fire, and the list empties")
    func stayAway() async throws {
        let harness = try await LegacyHarness()
        let application = harness.application
        let delegate = ReEngagementDelegate()
        let clock = harness.system.clock
        delegate.now = { clock.now }
        await application.launch(delegate: delegate)
        await application.enterBackground()
        #expect(await harness.system.advance(by: 60) == 1)
        #expect(await harness.system.advance(by: 120) == 1)
        #expect(harness.shownDueDates == [start.addingTimeInterval(60), start.addingTimeInterval(180)])
        #expect(harness.shownBodies.allSatisfy { $0 == "最近添加了诸多有趣的特性,是否立即体验?" })
        #expect(await application.fetchScheduledLocalNotifications().isEmpty)
    }
}
