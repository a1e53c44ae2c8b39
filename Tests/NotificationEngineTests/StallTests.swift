import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// A store whose writer is busy (an import's or a re-plan's transaction, another process) delays the loop's own writes:
/// a request already claimed ahead must still be presented at its instant. The writes are held by a ``GatedStore``
/// and every step is driven by a manual clock; the tests wait for states, never for time to pass.
@Suite("Stalls: held requests are presented while the store's writer is busy", .timeLimit(.minutes(5)))
struct StallTests {
    let start = instant("2026-01-05T09:00:00Z")
    let app = "com.example.app"
    let store: GatedStore
    let clock: ManualNotificationClock
    let presenter = RecordingPresenter()
    let engine: NotificationScheduler

    init() throws {
        store = GatedStore(try SQLiteNotificationStore())
        clock = ManualNotificationClock(now: start)
        engine = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: EngineConfiguration(pendingCap: nil))
    }

    func spec(_ identifier: String, in seconds: TimeInterval) -> RequestSpec {
        var content = NotificationPayload()
        content.title = identifier
        return RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(seconds, repeats: false))
    }

    /// Waits until `condition` holds, or 20 s of real time have passed (then the test fails on what it expects next).
    @discardableResult
    func waitUntil(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            await Task.yield()
        }
        return await condition()
    }

    /// Presented at its due instant on the manual clock (which sums the steps it was advanced by, in floating point).
    static func onTime(_ notification: RecordingPresenter.Presentation) -> Bool {
        abs(notification.date.timeIntervalSince(notification.dueDate)) < 0.001
    }

    /// "tea" due at 30 s and "cake" at 30.08 s: the loop claims tea ahead at 29.75 s and, woken at 29.9 s, claims cake
    /// ahead, a claim the store holds. Returns once that claim waits.
    func claimCakeWhileTeaIsHeld() async throws -> Task<Void, Never> {
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
        try await engine.add(spec("tea", in: 30), appID: app)
        try await engine.add(spec("cake", in: 30.08), appID: app)
        let loop = Task { await engine.run() }
        #expect(await waitUntil { await engine.sleepingUntil != nil && clock.sleeperCount == 1 })
        clock.advance(by: 29.75)
        #expect(await waitUntil { await engine.heldCount == 1 && clock.sleeperCount == 2 })
        store.close(.claimAhead)
        clock.advance(by: 0.15)  // 29.9 s: cake falls within the claim-ahead window
        #expect(await waitUntil { store.waitingCount(.claimAhead) == 1 })
        return loop
    }

    @Test("a held request is presented at its instant while the loop's claim ahead waits for the writer")
    func heldWhileClaimWaits() async throws {
        let loop = try await claimCakeWhileTeaIsHeld()
        defer { loop.cancel() }
        clock.advance(by: 0.1)  // 30 s: tea is due, the claim of cake still waits
        #expect(await waitUntil { presenter.presentations.count == 1 })
        #expect(presenter.presentations.map(\.identifier) == ["tea"])
        #expect(presenter.presentations.allSatisfy(Self.onTime))
        #expect(store.waitingCount(.claimAhead) == 1)
        // The writer is free again: cake is claimed, held, and presented at its own instant.
        store.open(.claimAhead)
        #expect(await waitUntil { await engine.heldCount == 1 })
        clock.advance(by: 0.08)
        #expect(await waitUntil { presenter.presentations.count == 2 })
        #expect(presenter.presentations.map(\.identifier) == ["tea", "cake"])
        #expect(presenter.presentations.allSatisfy(Self.onTime))
        #expect(await waitUntil { (try? await store.history(appID: app, limit: 10).count) == 2 })
        #expect(try await store.pendingRequests(appID: app).isEmpty)
    }

    @Test("a held request removed while the claim ahead waits is not presented")
    func removedWhileClaimWaits() async throws {
        let loop = try await claimCakeWhileTeaIsHeld()
        defer { loop.cancel() }
        try await engine.removePending(appID: app, identifiers: ["tea"])
        clock.advance(by: 0.1)  // 30 s: tea would be due
        store.open(.claimAhead)
        #expect(await waitUntil { await engine.heldCount == 1 })
        clock.advance(by: 0.08)
        #expect(await waitUntil { presenter.presentations.count == 1 })
        #expect(presenter.presentations.map(\.identifier) == ["cake"])
        #expect(await waitUntil { (try? await store.history(appID: app, limit: 10).count) == 1 })
    }
}
