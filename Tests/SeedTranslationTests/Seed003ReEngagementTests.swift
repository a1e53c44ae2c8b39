#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
// Apple's UserNotifications re-exports Foundation; OpenUserNotifications does not (yet), so the Foundation names
// below (TimeInterval) need this line on Linux. It is harmless on Apple platforms.
import Foundation

// Seed 003: "本地推送/本地通知". Its code is all pre-iOS 10: UILocalNotification, UIUserNotificationSettings,
// UIMutableUserNotificationAction/Category and the UIApplicationDelegate callbacks of iOS 8 and 9. That API is
// not translated here (its compatibility is a later issue), and the seed's "iOS 10 下使用本地通知" part is
// "待续" (never written). What is translated is the seed's "简单场景模拟", a scenario it describes in prose:
//
//     一般的工具型APP会包含多个本地通知,分别设置不同的fireDate。如3天,7天,一个月分别推送一次,以唤醒用户。
//     若一个月之内打开APP,则所有本地通知重置。
//     //模拟需求:这里以设置1Min和3Min的本地通知为例
//
// in today's API, with the demo's alert text. `UNUserNotificationCenter.current()` is the default of an injected
// `center`.

enum Seed003 {}

extension Seed003 {
    /// "简单场景模拟": reminders that bring the person back after some time away, reset whenever the app opens.
    final class ReEngagementReminders: Sendable {
        /// "这里以设置1Min和3Min的本地通知为例" (the real app: 3 days, 7 days and a month).
        static let demoIntervals: [TimeInterval] = [60, 180]

        private let center: UNUserNotificationCenter
        private let intervals: [TimeInterval]

        init(center: UNUserNotificationCenter = .current(), intervals: [TimeInterval] = demoIntervals) {
            self.center = center
            self.intervals = intervals
        }

        /// "若一个月之内打开APP,则所有本地通知重置": call whenever the app opens.
        func appDidOpen() {
            center.removeAllPendingNotificationRequests()
            for interval in intervals {
                let content = UNMutableNotificationContent()
                content.body = "最近添加了诸多有趣的特性,是否立即体验?"  // the demo's alertBody
                content.sound = .default
                let trigger = UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: false)
                let request = UNNotificationRequest(
                    identifier: "reengage-\(Int(interval))s", content: content, trigger: trigger)
                center.add(request)
            }
        }
    }
}

// MARK: - Tests

import OpenUserNotificationsTesting
import Testing

@Suite("Seed 003: re-engagement reminders reset when the app opens", .timeLimit(.minutes(1)))
struct Seed003ReEngagementTests {
    let app = "com.example.tool"
    let system: NotificationTestSystem

    init() throws {
        system = try NotificationTestSystem()
    }

    private func pendingDates(_ center: UNUserNotificationCenter) async -> [String: Date] {
        var dates: [String: Date] = [:]
        for request in await center.pendingNotificationRequests() {
            dates[request.identifier] = (request.trigger as? UNTimeIntervalNotificationTrigger)?.nextTriggerDate()
        }
        return dates
    }

    @Test("opening the app schedules the 1-minute and 3-minute reminders, which fire in turn")
    func firstOpen() async throws {
        let center = try await system.center(for: app)
        let reminders = Seed003.ReEngagementReminders(center: center)
        reminders.appDidOpen()
        await system.settle(center)
        #expect(
            await pendingDates(center) == [
                "reengage-60s": testSystemStart.addingTimeInterval(60),
                "reengage-180s": testSystemStart.addingTimeInterval(180),
            ])

        #expect(await system.advance(by: 60) == 1)
        #expect(await system.advance(by: 120) == 1)
        let shown = system.presenter.presentations
        #expect(shown.map(\.identifier) == ["reengage-60s", "reengage-180s"])
        #expect(shown.allSatisfy { $0.body == "最近添加了诸多有趣的特性,是否立即体验?" })
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("opening the app again before they fire starts both over")
    func reopenResets() async throws {
        let center = try await system.center(for: app)
        let reminders = Seed003.ReEngagementReminders(center: center)
        reminders.appDidOpen()
        await system.settle(center)
        #expect(await system.advance(by: 50) == 0)

        reminders.appDidOpen()
        await system.settle(center)
        #expect(
            await pendingDates(center) == [
                "reengage-60s": testSystemStart.addingTimeInterval(110),
                "reengage-180s": testSystemStart.addingTimeInterval(230),
            ])
        #expect(await system.advance(by: 59) == 0)
        #expect(await system.advance(by: 1) == 1)
        #expect(system.presenter.presentations.map(\.dueDate) == [testSystemStart.addingTimeInterval(110)])
    }

    @Test("opening the app after the first reminder re-arms it along with the second")
    func reopenAfterFirst() async throws {
        let center = try await system.center(for: app)
        let reminders = Seed003.ReEngagementReminders(center: center)
        reminders.appDidOpen()
        await system.settle(center)
        #expect(await system.advance(by: 90) == 1)

        reminders.appDidOpen()
        await system.settle(center)
        #expect(
            await pendingDates(center) == [
                "reengage-60s": testSystemStart.addingTimeInterval(150),
                "reengage-180s": testSystemStart.addingTimeInterval(270),
            ])
        #expect(await system.advance(by: 180) == 2)
        #expect(system.presenter.presentations.map(\.identifier) == ["reengage-60s", "reengage-60s", "reengage-180s"])
    }
}
