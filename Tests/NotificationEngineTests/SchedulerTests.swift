import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import NotificationStoreSQLite
import Testing

let app = "com.example.app"

func content(_ title: String, badge: Int? = nil, category: String = "") -> UNMutableNotificationContent {
    let content = UNMutableNotificationContent()
    content.title = title
    content.badge = badge.map { NSNumber(value: $0) }
    content.categoryIdentifier = category
    return content
}

func interval(_ id: String, _ seconds: TimeInterval, repeats: Bool = false, title: String? = nil) -> UNNotificationRequest {
    UNNotificationRequest(
        identifier: id, content: content(title ?? id),
        trigger: UNTimeIntervalNotificationTrigger(timeInterval: seconds, repeats: repeats))
}

@Suite("Scheduling and delivery")
struct SchedulerTests {
    @Test("a time-interval request is delivered at its due instant, not before", arguments: NotificationTestSystem.Mode.allCases)
    func deliversOnTime(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("tea", 180))
        await system.advance(by: 179)
        #expect(system.presenter.presentations.isEmpty)
        await system.advance(by: 1)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.identifier == "tea")
        #expect(shown.date == shown.dueDate)
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["tea"])
    }

    @Test("a request without a trigger is delivered at once", arguments: NotificationTestSystem.Mode.allCases)
    func nilTrigger(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(UNNotificationRequest(identifier: "now", content: content("Now"), trigger: nil))
        await system.advance(by: 0)
        #expect(system.presenter.presentations.map(\.identifier) == ["now"])
    }

    @Test("adding a request with an existing identifier replaces it", arguments: NotificationTestSystem.Mode.allCases)
    func replaces(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("same", 60, title: "first"))
        try await center.add(interval("same", 120, title: "second"))
        let pending = await center.pendingNotificationRequests()
        #expect(pending.map(\.content.title) == ["second"])
        await system.advance(by: 60)
        #expect(system.presenter.presentations.isEmpty)
        await system.advance(by: 60)
        #expect(system.presenter.presentations.map(\.title) == ["second"])
    }

    @Test("a repeating request fires every period until removed, and removing it stops every future fire", arguments: NotificationTestSystem.Mode.allCases)
    func repeatingAndRemoval(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("nag", 60, repeats: true))
        await system.advance(by: 180)
        #expect(system.presenter.presentations.count == 3)
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["nag"])
        center.removePendingNotificationRequests(withIdentifiers: ["nag"])
        await system.settle(center)
        await system.advance(by: 600)
        #expect(system.presenter.presentations.count == 3)
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("a repeating calendar request fires daily at the same wall time across a DST change", arguments: NotificationTestSystem.Mode.allCases)
    func dailyAcrossDST(mode: NotificationTestSystem.Mode) async throws {
        // 2026-03-07 12:00 UTC; New York springs forward on the 8th.
        let system = try NotificationTestSystem(mode: mode, 
            now: instant("2026-03-07T12:00:00Z"), timeZone: TimeZone(identifier: "America/New_York")!)
        let center = try await system.center(for: app)
        var morning = DateComponents()
        morning.hour = 7
        morning.minute = 0
        try await center.add(
            UNNotificationRequest(
                identifier: "morning", content: content("Morning"),
                trigger: UNCalendarNotificationTrigger(dateMatching: morning, repeats: true)))
        await system.advance(by: 3 * 86_400)
        #expect(
            system.presenter.presentations.map(\.dueDate)
                == ["2026-03-08T11:00:00Z", "2026-03-09T11:00:00Z", "2026-03-10T11:00:00Z"].map(instant))
    }

    @Test("the pending cap keeps the soonest-firing requests, counts a repeating one once, and records discards", arguments: NotificationTestSystem.Mode.allCases)
    func pendingCap(mode: NotificationTestSystem.Mode) async throws {
        var configuration = OpenUserNotificationsConfiguration()
        configuration.pendingCap = 3
        let system = try NotificationTestSystem(mode: mode, configuration: configuration)
        let center = try await system.center(for: app)
        try await center.add(interval("repeating", 60, repeats: true))
        for (id, seconds) in [("a", 500.0), ("b", 100), ("c", 300)] { try await center.add(interval(id, seconds)) }
        #expect(Set(await center.pendingNotificationRequests().map(\.identifier)) == ["repeating", "b", "c"])
        let history = try await system.history(app: app)
        #expect(history.map(\.outcome) == [.discarded])
        #expect(history.first?.requestIdentifier == "a")
        // A request later than all kept ones is discarded itself.
        try await center.add(interval("late", 10_000))
        #expect(!(await center.pendingNotificationRequests().map(\.identifier)).contains("late"))
        // Other apps have their own cap.
        let other = try await system.center(for: "com.example.other")
        try await other.add(interval("x", 10))
        #expect(await other.pendingNotificationRequests().count == 1)
    }

    @Test("the pending cap is 64 by default and can be turned off", arguments: NotificationTestSystem.Mode.allCases)
    func defaultCapAndOff(mode: NotificationTestSystem.Mode) async throws {
        let capped = try NotificationTestSystem(mode: mode)
        let center = try await capped.center(for: app)
        for index in 0..<70 { try await center.add(interval("r\(index)", TimeInterval(100 + index))) }
        let kept = await center.pendingNotificationRequests().map(\.identifier)
        #expect(kept.count == 64)
        #expect(!kept.contains("r64") && kept.contains("r63"))

        var configuration = OpenUserNotificationsConfiguration()
        configuration.pendingCap = nil
        let uncapped = try NotificationTestSystem(mode: mode, configuration: configuration)
        let all = try await uncapped.center(for: app)
        for index in 0..<70 { try await all.add(interval("r\(index)", TimeInterval(100 + index))) }
        #expect(await all.pendingNotificationRequests().count == 70)
    }

    @Test("a missed one-shot fire is delivered once when the engine runs again", arguments: NotificationTestSystem.Mode.allCases)
    func missedOneShot(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("late", 60))
        await system.jump(by: 3_600)
        let shown = try #require(system.presenter.presentations.first)
        #expect(system.presenter.presentations.count == 1)
        #expect(shown.date.timeIntervalSince(shown.dueDate) == 3_540)
        let entry = try #require(try await system.history(app: app).first)
        #expect(entry.lateness == 3_540)
    }

    @Test("a missed repeating request is delivered once, not once per period, then keeps its schedule", arguments: NotificationTestSystem.Mode.allCases)
    func missedRepeating(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("nag", 60, repeats: true))
        await system.jump(by: 630)  // ten periods missed
        #expect(system.presenter.presentations.count == 1)
        await system.advance(by: 30)  // 660 s: back on the 60 s grid
        #expect(system.presenter.presentations.count == 2)
        #expect(system.presenter.presentations.last?.dueDate == system.presenter.presentations.last?.date)
    }

    @Test(
        "the missed-fire policy decides whether a late fire is delivered",
        arguments: [
            (NotificationModel.MissedFirePolicy.deliver, 3_600.0, true), (.skip, 3_600, false), (.skip, 0, true),
            (.deliverIfWithin(900), 600, true), (.deliverIfWithin(900), 1_200, false),
        ] as [(NotificationModel.MissedFirePolicy, Double, Bool)])
    func missedPolicy(policy: NotificationModel.MissedFirePolicy, lateness: Double, delivered: Bool) async throws {
        let system = try NotificationTestSystem()
        let center = try await system.center(for: app)
        let request = interval("r", 60)
        request.missedFirePolicy = policy
        try await center.add(request)
        await system.jump(by: 60 + lateness)
        #expect(system.presenter.presentations.count == (delivered ? 1 : 0))
        let entry = try #require(try await system.history(app: app).first)
        #expect(entry.outcome == (delivered ? .delivered : .skipped))
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("pending requests survive a restart and fire afterwards", arguments: NotificationTestSystem.Mode.allCases)
    func survivesRestart(mode: NotificationTestSystem.Mode) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let first = try NotificationTestSystem(mode: mode, storePath: path)
        try await first.center(for: app).add(interval("persist", 120))
        try await first.center(for: app).add(interval("nag", 60, repeats: true))
        // A new engine on a new connection to the same file, as after kill -9.
        let second = try NotificationTestSystem(mode: mode, now: first.clock.now, storePath: path)
        let center = try await second.center(for: app)
        #expect(Set(await center.pendingNotificationRequests().map(\.identifier)) == ["persist", "nag"])
        await second.advance(by: 120)
        #expect(second.presenter.presentations.map(\.identifier).sorted() == ["nag", "nag", "persist"])
    }

    @Test("history records due and actual instants, presentation and what became of each notification", arguments: NotificationTestSystem.Mode.allCases)
    func historyOutcomes(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("one", 10))
        try await center.add(interval("two", 20))
        await system.advance(by: 20)
        try await system.respond(to: "one", app: app)
        center.removeDeliveredNotifications(withIdentifiers: ["two"])
        await system.settle(center)
        let history = try await center.deliveryHistory()
        let byID = Dictionary(uniqueKeysWithValues: history.map { ($0.requestIdentifier, $0) })
        #expect(byID["one"]?.outcome == .action)
        #expect(byID["one"]?.detail == UNNotificationDefaultActionIdentifier)
        #expect(byID["two"]?.outcome == .removed)
        #expect(byID["two"]?.presenter == "recording")
        #expect(byID["two"]?.presentation.contains(.banner) == true)
        #expect(byID["one"]?.dueDate == system.clock.now.addingTimeInterval(-10))
        #expect(system.presenter.withdrawn == ["one", "two"])
    }

    @Test("the run loop sleeps until the next fire date and wakes when a request is added")
    func runLoopSleepsAndWakes() async throws {
        let system = try NotificationTestSystem()
        let center = try await system.center(for: app)
        let loop = Task { await system.scheduler.run() }
        defer { loop.cancel() }
        try await center.add(interval("soon", 30))
        // The loop is asleep on the clock (deadline = the fire date), not polling.
        while system.clock.sleeperCount == 0 { await Task.yield() }
        system.clock.advance(by: 30)
        while system.presenter.presentations.isEmpty { await Task.yield() }
        #expect(system.presenter.presentations.map(\.identifier) == ["soon"])
        // With nothing pending the loop waits for a change only: nobody sleeps on the clock.
        while system.clock.sleeperCount > 0 { await Task.yield() }
        try await center.add(interval("later", 60))
        while system.clock.sleeperCount == 0 { await Task.yield() }
        system.clock.advance(by: 60)
        while system.presenter.presentations.count < 2 { await Task.yield() }
        #expect(system.presenter.presentations.map(\.identifier) == ["soon", "later"])
    }

    @Test("an engine scoped to one app (an app's own process) delivers only that app's requests")
    func deliveryScope() async throws {
        let store = try SQLiteNotificationStore()
        let clock = ManualNotificationClock(now: instant("2026-01-05T09:00:00Z"))
        let presenter = RecordingPresenter()
        let scoped = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: EngineConfiguration(deliveryScope: "com.example.mine"))
        for appID in ["com.example.mine", "com.example.theirs"] {
            try await scoped.setAuthorization(appID: appID, status: .authorized, options: [.alert])
            try await scoped.add(RequestSpec(identifier: appID, content: NotificationPayload(), trigger: nil), appID: appID)
        }
        await scoped.deliverDue()
        #expect(presenter.presentations.map(\.appID) == ["com.example.mine"])
        #expect(try await store.pendingRequests(appID: "com.example.theirs").count == 1)
        #expect(try await store.nextWakeDate(appID: "com.example.mine") == nil)
    }
}
