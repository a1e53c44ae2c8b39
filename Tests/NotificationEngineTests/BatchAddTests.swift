import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// `UNUserNotificationCenter.add(contentsOf:)`: many requests at once, all of them or none.
@Suite("Adding a batch")
struct BatchAddTests {
    @Test("every request of a batch is stored and delivered at its own instant", arguments: NotificationTestSystem.Mode.allCases)
    func storesAll(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        let requests = (1...50).map { interval("r\($0)", TimeInterval($0 * 60)) }
        let result = try await center.add(contentsOf: requests)
        #expect(result.added == 50 && result.discarded.isEmpty)
        #expect(await center.pendingNotificationRequests().map(\.identifier) == requests.map(\.identifier))
        await system.advance(by: 3 * 60)
        #expect(system.presenter.presentations.map(\.identifier) == ["r1", "r2", "r3"])
        #expect(system.presenter.presentations.allSatisfy { $0.date == $0.dueDate })
    }

    @Test("one refused request refuses the batch: each refusal named by index, nothing stored", arguments: NotificationTestSystem.Mode.allCases)
    func refusesAll(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("kept", 600))
        let requests = [
            interval("fine", 60),
            interval("too-soon", 30, repeats: true),  // Apple traps: a repeating interval under 60 s
            interval("kept", 120),
            interval("zero", 0),  // Apple traps: an interval must be above 0
        ]
        await #expect {
            try await center.add(contentsOf: requests)
        } throws: { error in
            guard let error = error as? NotificationBatchError else { return false }
            return error.refusals.map(\.index) == [1, 3] && error.refusals.map(\.identifier) == ["too-soon", "zero"]
                && error.refusals.allSatisfy { $0.error is NotificationRequestError }
        }
        var never = DateComponents()  // a day before the clock's start: no date matches any more
        never.year = 2020
        never.month = 1
        never.day = 1
        let noDate = UNNotificationRequest(
            identifier: "no-date", content: content("x"), trigger: UNCalendarNotificationTrigger(dateMatching: never, repeats: false))
        await #expect {
            try await center.add(contentsOf: [interval("fine", 60), noDate])
        } throws: { error in
            let refusals = (error as? NotificationBatchError)?.refusals ?? []
            return refusals.map(\.index) == [1] && (refusals.first?.error as? UNError)?.code == .notificationInvalidNoDate
        }
        let pending = await center.pendingNotificationRequests()
        #expect(pending.map(\.identifier) == ["kept"])
        #expect((pending.first?.trigger as? UNTimeIntervalNotificationTrigger)?.timeInterval == 600)
    }

    @Test("a later request replaces an earlier one with its identifier, in the batch and in the store", arguments: NotificationTestSystem.Mode.allCases)
    func replaces(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        try await center.add(interval("a", 60, title: "old a"))
        try await center.add(contentsOf: [interval("b", 60, title: "first b"), interval("a", 120, title: "new a"), interval("b", 180, title: "second b")])
        let pending = await center.pendingNotificationRequests()
        #expect(pending.map(\.content.title).sorted() == ["new a", "second b"])
    }

    @Test("the pending cap applies once, after the batch: the soonest stay, the rest are discarded with history", arguments: NotificationTestSystem.Mode.allCases)
    func cap(mode: NotificationTestSystem.Mode) async throws {
        var configuration = OpenUserNotificationsConfiguration()
        configuration.pendingCap = 5
        let system = try NotificationTestSystem(mode: mode, configuration: configuration)
        let center = try await system.center(for: app)
        try await center.add(interval("early", 30))
        // Out of order on purpose: the cap keeps the soonest, whatever their place in the batch.
        let seconds = [900, 120, 600, 60, 300, 1_200, 240]
        let result = try await center.add(contentsOf: seconds.map { interval("s\($0)", TimeInterval($0)) })
        #expect(result.added == 7)
        #expect(Set(result.discarded) == ["s600", "s900", "s1200"])
        #expect(Set(await center.pendingNotificationRequests().map(\.identifier)) == ["early", "s60", "s120", "s240", "s300"])
        let discarded = try await system.history(app: app).filter { $0.outcome == .discarded }
        #expect(Set(discarded.map(\.requestIdentifier)) == ["s600", "s900", "s1200"])
    }

    @Test("a denied app's batch is refused as add refuses one request", arguments: NotificationTestSystem.Mode.allCases)
    func denied(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app, authorize: false)
        try await system.scheduler.setAuthorization(appID: app, status: .denied, options: [])
        await #expect {
            try await center.add(contentsOf: [interval("x", 60)])
        } throws: { error in
            let refusals = (error as? NotificationBatchError)?.refusals ?? []
            return (refusals.first?.error as? UNError)?.code == .notificationsNotAllowed || (error as? UNError)?.code == .notificationsNotAllowed
        }
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("an empty batch stores nothing and succeeds", arguments: NotificationTestSystem.Mode.allCases)
    func empty(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: app)
        let result = try await center.add(contentsOf: [])
        #expect(result.added == 0)
    }

    @Test("through the daemon, a batch larger than one message (1 MiB) travels in several and is stored whole")
    func largerThanOneMessage() async throws {
        var configuration = OpenUserNotificationsConfiguration()
        configuration.pendingCap = nil
        let system = try NotificationTestSystem(mode: .daemon, configuration: configuration)
        let center = try await system.center(for: app)
        let body = String(repeating: "x", count: 1_000)
        let requests = (0..<3_000).map { index in
            let content = content("r\(index)")
            content.body = body
            return UNNotificationRequest(
                identifier: "r\(index)", content: content,
                trigger: UNTimeIntervalNotificationTrigger(timeInterval: TimeInterval(60 + index), repeats: false))
        }
        let result = try await center.add(contentsOf: requests)
        #expect(result.added == 3_000 && result.discarded.isEmpty)
        // Read from the store, whose errors surface: the API's listing answers an empty list on any error (as
        // Apple's does), and under a loaded machine the 3 MB reply once timed out and failed the test without a word.
        let stored = try await system.scheduler.store.pendingRequests(appID: app)
        #expect(stored.map(\.spec.identifier).sorted() == requests.map(\.identifier).sorted())
        #expect(stored.allSatisfy { $0.spec.content.body == body })
    }

    @Test("the completion-handler form reports the same result")
    func completionHandler() async throws {
        let system = try NotificationTestSystem(mode: .embedded)
        let center = try await system.center(for: app)
        let result = try await withCheckedThrowingContinuation { continuation in
            center.add(contentsOf: [interval("c1", 60), interval("c2", 60)]) { continuation.resume(with: $0) }
        }
        #expect(result.added == 2)
    }
}
