import Foundation
import OpenUserNotificationsLegacy
import OpenUserNotificationsTesting
import Testing

/// 2026-01-05 09:00 UTC, a Monday: where every ``NotificationTestSystem`` starts by default.
let start = Date(timeIntervalSince1970: 1_767_603_600)

/// A zone by identifier.
func zone(_ identifier: String) -> TimeZone { TimeZone(identifier: identifier)! }

/// A date in a zone, for fire dates and expectations.
func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0, _ second: Int = 0, in zone: TimeZone = zone("UTC"))
    -> Date
{
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

/// A test system, a center for one app and a `UIApplication` over both, on the system's manual clock.
@MainActor
struct LegacyHarness {
    let app = "com.example.legacy"
    let system: NotificationTestSystem
    let center: UNUserNotificationCenter
    let application: UIApplication

    init(now: Date = start, timeZone: TimeZone = zone("UTC"), authorize: Bool = true) async throws {
        system = try NotificationTestSystem(now: now, timeZone: timeZone)
        center = try await system.center(for: app, authorize: authorize)
        let clock = system.clock
        application = UIApplication(
            center: center, clock: LegacyApplicationClock(now: { clock.now }, timeZone: { clock.timeZone }))
        await application.settle()
    }

    /// The due dates of everything shown so far.
    var shownDueDates: [Date] { system.presenter.presentations.map(\.dueDate) }

    /// The bodies of everything shown so far.
    var shownBodies: [String] { system.presenter.presentations.map(\.body) }
}

/// A delegate that records every call.
@MainActor
final class RecordingDelegate: UIResponder, UIApplicationDelegate {
    var launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    var received: [UILocalNotification] = []
    var actions: [(identifier: String?, notification: UILocalNotification, responseInfo: [AnyHashable: Any])] = []
    var registered: [UIUserNotificationSettings] = []
    var events: [String] = []

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        self.launchOptions = launchOptions
        events.append("didFinishLaunching")
        return true
    }

    func application(_ application: UIApplication, didReceive notification: UILocalNotification) {
        received.append(notification)
        events.append("didReceive \(notification.alertBody ?? "")")
    }

    func application(
        _ application: UIApplication, handleActionWithIdentifier identifier: String?, for notification: UILocalNotification,
        withResponseInfo responseInfo: [AnyHashable: Any], completionHandler: @escaping () -> Void
    ) {
        actions.append((identifier, notification, responseInfo))
        events.append("handleAction \(identifier ?? "")")
        completionHandler()
    }

    func application(_ application: UIApplication, didRegister notificationSettings: UIUserNotificationSettings) {
        registered.append(notificationSettings)
        events.append("didRegister")
    }

    func applicationWillEnterForeground(_ application: UIApplication) { events.append("willEnterForeground") }
    func applicationDidBecomeActive(_ application: UIApplication) { events.append("didBecomeActive") }
    func applicationDidEnterBackground(_ application: UIApplication) { events.append("didEnterBackground") }
    func applicationWillTerminate(_ application: UIApplication) { events.append("willTerminate") }
}
