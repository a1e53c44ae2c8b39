import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import OpenUserNotificationsTesting
import Testing

@Suite("Scheduler on PostgreSQL")
struct PostgresSchedulerTests {
    let app = "com.example.app"

    func spec(_ id: String, _ trigger: TriggerSpec?) -> RequestSpec {
        var content = NotificationPayload()
        content.title = id
        return RequestSpec(identifier: id, content: content, trigger: trigger)
    }

    @Test("the scheduler delivers on time from a PostgreSQL store: intervals, repeats and floating calendar triggers")
    func deliversOnTime() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            // Monday 5 January 2026, 08:00 in Paris.
            let clock = ManualNotificationClock(
                now: Date(timeIntervalSince1970: 1_767_596_400), timeZone: TimeZone(identifier: "Europe/Paris")!)
            let presenter = RecordingPresenter()
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter)
            try await scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert])
            try await scheduler.add(spec("tea", .timeInterval(180, repeats: false)), appID: app)
            try await scheduler.add(spec("nag", .timeInterval(600, repeats: true)), appID: app)
            try await scheduler.add(
                spec("nine", .calendar(CalendarComponents(DateComponents(hour: 9)), repeats: true, matching: .apple)),
                appID: app)
            clock.advance(by: 179)
            await scheduler.deliverDue()
            #expect(presenter.presentations.isEmpty)
            clock.advance(by: 1)
            await scheduler.deliverDue()
            #expect(presenter.presentations.map(\.identifier) == ["tea"])
            // 09:00 Paris: the floating trigger (its plan in the shared table) and the sixth repeat of "nag".
            for _ in 0..<35 {
                clock.advance(by: 100)
                await scheduler.deliverDue()
            }
            let shown = presenter.presentations
            #expect(shown.filter { $0.identifier == "nag" }.count == 6)
            #expect(
                shown.filter { $0.identifier == "nine" }.map(\.dueDate) == [Date(timeIntervalSince1970: 1_767_600_000)])
            #expect(shown.allSatisfy { $0.date >= $0.dueDate })
            #expect(try await scheduler.pendingRequests(appID: app).map(\.identifier).sorted() == ["nag", "nine"])
            #expect(try await scheduler.deliveredNotifications(appID: app).count == 3)
            // The next day at 09:00 again.
            let nine = try #require(try await store.pendingRequests(appID: app).first { $0.identifier == "nine" })
            #expect(nine.nextFireDate == Date(timeIntervalSince1970: 1_767_600_000 + 86_400))
        }
    }

    @Test("a zone change re-plans floating triggers in PostgreSQL: 09:00 follows the new zone")
    func zoneChange() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            // Monday 5 January 2026, 08:00 in Paris (07:00 UTC).
            let clock = ManualNotificationClock(
                now: Date(timeIntervalSince1970: 1_767_596_400), timeZone: TimeZone(identifier: "Europe/Paris")!)
            let presenter = RecordingPresenter()
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter)
            try await scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert])
            let nine = CalendarComponents(DateComponents(hour: 9))
            try await scheduler.add(spec("nine", .calendar(nine, repeats: true, matching: .apple)), appID: app)
            // Also a second app following the same components: one plan each, moved together.
            try await scheduler.setAuthorization(appID: "com.example.other", status: .authorized, options: [.alert])
            try await scheduler.add(
                spec("nine", .calendar(nine, repeats: true, matching: .apple)), appID: "com.example.other")
            clock.setTimeZone(TimeZone(identifier: "America/New_York")!)
            try await scheduler.timeZoneDidChange()
            let newYorkNine = Date(timeIntervalSince1970: 1_767_621_600)  // 14:00 UTC
            #expect(
                try await store.floatingPlans(dueAfter: clock.now).map(\.nextFireDate) == [newYorkNine, newYorkNine])
            clock.set(to: Date(timeIntervalSince1970: 1_767_600_000))  // 09:00 in Paris
            await scheduler.deliverDue()
            #expect(presenter.presentations.isEmpty)
            clock.set(to: newYorkNine)
            await scheduler.deliverDue()
            #expect(presenter.presentations.map(\.appID).sorted() == [app, "com.example.other"])
            #expect(presenter.presentations.allSatisfy { $0.dueDate == newYorkNine })
        }
    }

    @Test("two schedulers on one database, as two workers, deliver every due fire once between them")
    func twoWorkers() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { storeA in
            try await PostgresNotificationStore.withStore(configuration: configuration) { storeB in
                let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_596_400))
                let presenterA = RecordingPresenter()
                let presenterB = RecordingPresenter()
                let a = NotificationScheduler(store: storeA, clock: clock, presenter: presenterA)
                let b = NotificationScheduler(store: storeB, clock: clock, presenter: presenterB)
                // Eight apps of 25 requests: under the engine's default cap of 64 pending requests per app.
                let apps = (0..<8).map { "com.example.app\($0)" }
                for app in apps {
                    for worker in [a, b] {
                        try await worker.setAuthorization(appID: app, status: .authorized, options: [.alert])
                    }
                }
                for n in 0..<200 {
                    try await (n % 2 == 0 ? a : b).add(
                        spec("r\(n)", .timeInterval(Double(60 + n % 10), repeats: false)), appID: apps[n % 8])
                }
                clock.advance(by: 70)
                async let shownA = a.deliverDue()
                async let shownB = b.deliverDue()
                let (countA, countB) = await (shownA, shownB)
                let all = (presenterA.presentations + presenterB.presentations).map(\.identifier)
                #expect(all.count == 200)
                #expect(Set(all).count == 200)
                #expect(countA + countB == 200)
                #expect(try await storeA.pendingCount() == 0)
            }
        }
    }
}
