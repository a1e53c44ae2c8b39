import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Testing

/// While the loop runs, a push due at once is stored already claimed by the engine in the transaction that accepts
/// it, and handed to the loop, which presents and records it without a claim transaction of its own. Driven by a
/// manual clock; the tests wait for states, never for time to pass.
@Suite("Pushes stored claimed", .timeLimit(.minutes(1)))
struct ClaimedPushTests {
    let start = instant("2026-01-05T09:00:00Z")
    let app = "com.example.app"
    let sqlite: SQLiteNotificationStore
    let store: GatedStore
    let clock: ManualNotificationClock

    init() throws {
        sqlite = try SQLiteNotificationStore()
        store = GatedStore(sqlite)
        clock = ManualNotificationClock(now: start)
    }

    func push(_ identifier: String) -> RemoteNotification {
        var content = NotificationPayload()
        content.title = identifier
        return RemoteNotification(
            identifier: identifier, content: content, isBackground: false, contentAvailable: false,
            mutableContent: false)
    }

    /// Yields until `condition` holds (the suite's time limit ends a test that would wait forever).
    /// Yields until `condition` holds, or until the suite's time limit cancels the test (which then fails there
    /// rather than spinning on).
    func waitUntil(_ condition: () async -> Bool) async {
        while !(await condition()) && !Task.isCancelled { await Task.yield() }
    }

    @Test("a push accepted while the loop runs is presented and recorded without a claim transaction")
    func noClaimTransaction() async throws {
        let presenter = RecordingPresenter()
        let engine = NotificationScheduler(store: store, clock: clock, presenter: presenter)
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert, .sound, .badge])
        let loop = Task { await engine.run() }
        defer { loop.cancel() }
        await waitUntil { await engine.sleepingUntil != nil }
        // Any claim the loop tried from here on would wait for ever.
        store.close(.claimDue)
        store.close(.claimAhead)
        #expect(try await engine.deliverPush(push("score"), appID: app, deliver: false) == .scheduled)
        await waitUntil { !presenter.presentations.isEmpty }
        await waitUntil { (try? await sqlite.history(appID: app, limit: 10).count) == 1 }
        #expect(presenter.presentations.map(\.identifier) == ["score"])
        #expect(presenter.presentations.first?.date == start)
        #expect(try await sqlite.history(appID: app, limit: 10).map(\.outcome) == [.delivered])
        #expect(try await sqlite.pendingRequests(appID: app).isEmpty)
        #expect(store.heldCount(.claimDue) == 0)
        #expect(store.heldCount(.claimAhead) == 0)
        #expect(engine.claims.heldCount == 0)
    }

    @Test("a push stored claimed is not taken by another engine; the claim ends with its lease if never presented")
    func claimedInTheStore() async throws {
        let presenter = GatePresenter()
        let engine = NotificationScheduler(store: store, clock: clock, presenter: presenter)
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
        let loop = Task { await engine.run() }
        await waitUntil { await engine.sleepingUntil != nil }
        try await engine.deliverPush(push("first"), appID: app, deliver: false)
        await waitUntil { presenter.started == ["first"] }
        // The loop presents "first"; "second" is handed over meanwhile and waits for the next pass.
        try await engine.deliverPush(push("second"), appID: app, deliver: false)
        let lease = EngineConfiguration().claimLease
        #expect(try await sqlite.claimDue(at: start, leaseUntil: start.addingTimeInterval(lease), limit: 10).isEmpty)
        #expect(try await sqlite.nextWakeDate() == start.addingTimeInterval(lease))
        // Stopping the loop releases the push it was handed and had not presented.
        loop.cancel()
        presenter.open()
        await loop.value
        #expect(presenter.started == ["first"])
        let again = try await sqlite.claimDue(at: start, leaseUntil: start.addingTimeInterval(lease), limit: 10)
        #expect(again.map(\.identifier) == ["second"])
        #expect(try await sqlite.history(appID: app, limit: 10).map(\.requestIdentifier) == ["first"])
    }

    /// `signalsBefore`: wake-ups of adds that replaced nothing held (`touchesHeld: false`), sent before the batch. The
    /// batch path once stamped its pushes with the count of all wake-ups where the loop compares the count of those
    /// that touch what it holds: when the two differed by as many as the loop had seen since, it skipped its check and
    /// presented the replaced push (the session-13 review; two such signals did it).
    @Test(
        "pushes handed over together are published for adds: one an add replaces is not presented",
        arguments: [0, 1, 2, 3])
    func batchPublishedForAdds(signalsBefore: Int) async throws {
        let presenter = GatePresenter()
        let engine = NotificationScheduler(store: store, clock: clock, presenter: presenter)
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
        let loop = Task { await engine.run() }
        defer { loop.cancel() }
        await waitUntil { await engine.sleepingUntil != nil }
        try await engine.deliverPush(push("first"), appID: app, deliver: false)
        await waitUntil { presenter.started == ["first"] }
        for _ in 0..<signalsBefore { engine.wake.signal(touchesHeld: false) }
        // Handed over together while the loop presents "first": both keys published at once.
        let outcomes = await engine.deliverPushes([(push("a"), app), (push("b"), app)], deliver: false)
        #expect(outcomes.allSatisfy { if case .success(.scheduled) = $0 { true } else { false } })
        #expect(engine.addState.withLock { $0.mayReplaceHeld(appID: app, identifier: "a") })
        #expect(engine.addState.withLock { $0.mayReplaceHeld(appID: app, identifier: "b") })
        #expect(!engine.addState.withLock { $0.mayReplaceHeld(appID: app, identifier: "other") })
        // An add replaces "a" (a new request due in a minute): the loop checks what it holds before presenting.
        var content = NotificationPayload()
        content.title = "replacement"
        try await engine.add(
            RequestSpec(identifier: "a", content: content, trigger: .timeInterval(60, repeats: false)), appID: app)
        presenter.open()
        await waitUntil { (try? await sqlite.history(appID: app, limit: 10).count) == 2 }
        #expect(presenter.started == ["first", "b"])
        #expect(try await sqlite.pendingRequests(appID: app).map(\.spec.content.title) == ["replacement"])
    }

    @Test("a push accepted while the loop does not run is stored unclaimed, and delivered by a pass")
    func withoutTheLoop() async throws {
        let presenter = RecordingPresenter()
        let engine = NotificationScheduler(store: store, clock: clock, presenter: presenter)
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
        try await engine.deliverPush(push("later"), appID: app, deliver: false)
        #expect(try await sqlite.nextWakeDate() == start)
        #expect(presenter.presentations.isEmpty)
        #expect(await engine.deliverDue() == 1)
        #expect(presenter.presentations.map(\.identifier) == ["later"])
    }
}
