import Foundation
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Testing

@testable import NotificationEngine

/// The delivery loop is woken by an add only when the add is due sooner than the loop's plan.
@Suite("Waking the loop")
struct LoopWakeTests {
    static func spec(_ id: String, in seconds: TimeInterval) -> RequestSpec {
        RequestSpec(identifier: id, content: NotificationPayload(), trigger: .timeInterval(seconds, repeats: false))
    }

    @Test("an add due after the loop's planned wake-up does not wake it; one due before does, and is delivered on time")
    func wakesOnlyWhenSooner() async throws {
        let clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_767_603_600))
        let presenter = RecordingPresenter()
        let scheduler = NotificationScheduler(
            store: try SQLiteNotificationStore(), clock: clock, presenter: presenter,
            configuration: EngineConfiguration(pendingCap: nil))
        try await scheduler.setAuthorization(appID: "com.example.app", status: .authorized, options: [.alert])
        try await scheduler.add(Self.spec("hour", in: 3_600), appID: "com.example.app")
        let loop = Task { await scheduler.run() }
        defer { loop.cancel() }
        // The loop wakes early enough to claim ahead of the due instant.
        let ahead = EngineConfiguration(pendingCap: nil).claimAhead
        let inAnHour = clock.now.addingTimeInterval(3_600 - ahead)
        for _ in 0..<1_000 where await scheduler.sleepingUntil != inAnHour { try await Task.sleep(for: .milliseconds(2)) }
        #expect(await scheduler.sleepingUntil == inAnHour)

        let generation = scheduler.wake.generation
        try await scheduler.add(Self.spec("later", in: 7_200), appID: "com.example.app")
        #expect(scheduler.wake.generation == generation)  // not woken: it reads the store again in an hour
        #expect(await scheduler.sleepingUntil == inAnHour)

        try await scheduler.add(Self.spec("soon", in: 60), appID: "com.example.app")
        #expect(scheduler.wake.generation == generation + 1)
        let inAMinute = clock.now.addingTimeInterval(60 - ahead)
        for _ in 0..<1_000 where await scheduler.sleepingUntil != inAMinute { try await Task.sleep(for: .milliseconds(2)) }
        #expect(await scheduler.sleepingUntil == inAMinute)
        clock.advance(by: 60)
        for _ in 0..<1_000 where presenter.presentations.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        #expect(presenter.presentations.map(\.identifier) == ["soon"])
    }
}
