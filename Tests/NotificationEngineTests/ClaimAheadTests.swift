import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// The loop claims a request `claimAhead` (0.25 s) before its due instant and presents it at the instant. Every step
/// is driven by a manual clock: the tests wait for the loop to reach a state (asleep on the clock, holding a claim),
/// never for time to pass. While a claim is held, two tasks sleep on the clock: the loop, and the renewal of the claims
/// (ClaimRenewal, due a third of a lease later).
@Suite("Claiming ahead of the due instant", .timeLimit(.minutes(1)))
struct ClaimAheadTests {
    let start = instant("2026-01-05T09:00:00Z")
    let app = "com.example.app"
    let store: SQLiteNotificationStore
    let clock: ManualNotificationClock
    let presenter = RecordingPresenter()
    let engine: NotificationScheduler

    init() throws {
        store = try SQLiteNotificationStore()
        clock = ManualNotificationClock(now: start)
        engine = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: EngineConfiguration(pendingCap: nil))
    }

    func spec(_ identifier: String, in seconds: TimeInterval, title: String? = nil) -> RequestSpec {
        var content = NotificationPayload()
        content.title = title ?? identifier
        return RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(seconds, repeats: false))
    }

    /// Yields until `condition` holds (the suite's time limit ends a test that would wait forever).
    func waitUntil(_ condition: () async -> Bool) async {
        while !(await condition()) { await Task.yield() }
    }

    /// Adds "tea" due in 30 s, starts the loop, and moves the clock to 0.25 s before the due instant: the loop has
    /// claimed the request and sleeps until the instant (its claim's renewal sleeps too).
    func holdTea() async throws -> Task<Void, Never> {
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert, .sound, .badge])
        try await engine.add(spec("tea", in: 30), appID: app)
        let loop = Task { await engine.run() }
        await waitUntil { clock.sleeperCount == 1 }
        clock.advance(by: 29.75)
        await waitUntil { await engine.heldCount == 1 && clock.sleeperCount == 2 }
        return loop
    }

    @Test("a request is claimed ahead, and presented at its due instant, not before")
    func presentsAtTheInstant() async throws {
        let loop = try await holdTea()
        defer { loop.cancel() }
        #expect(presenter.presentations.isEmpty)
        // Claimed durably: another engine on the store does not take it.
        let due = start.addingTimeInterval(30)
        #expect(try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10).isEmpty)
        clock.advance(by: 0.25)
        await waitUntil { !presenter.presentations.isEmpty }
        let shown = try #require(presenter.presentations.first)
        #expect(shown.identifier == "tea")
        #expect(shown.date == due)
        #expect(shown.dueDate == due)
        await waitUntil { (try? await store.history(appID: app, limit: 10).count) == 1 }
        #expect(try await store.history(appID: app, limit: 10).map(\.outcome) == [.delivered])
        #expect(try await store.pendingRequests(appID: app).isEmpty)
    }

    @Test("a request removed after it was claimed ahead is not delivered")
    func removedWhileHeld() async throws {
        let loop = try await holdTea()
        defer { loop.cancel() }
        try await engine.removePending(appID: app, identifiers: ["tea"])
        await waitUntil { await engine.heldCount == 0 }
        clock.advance(by: 0.25)
        await engine.deliverDue()
        #expect(presenter.presentations.isEmpty)
        #expect(try await store.history(appID: app, limit: 10).isEmpty)
    }

    @Test("a request replaced after it was claimed ahead is delivered once, as the replacement, at its own instant")
    func replacedWhileHeld() async throws {
        let loop = try await holdTea()
        defer { loop.cancel() }
        try await engine.add(spec("tea", in: 30.25, title: "second"), appID: app)  // due at start + 60
        await waitUntil { await engine.heldCount == 0 && clock.sleeperCount == 1 }
        clock.advance(by: 0.25)
        await engine.deliverDue()
        #expect(presenter.presentations.isEmpty)
        clock.advance(by: 29.75)  // 0.25 s before the replacement is due: claimed ahead
        await waitUntil { await engine.heldCount == 1 && clock.sleeperCount == 2 }
        clock.advance(by: 0.25)
        await waitUntil { !presenter.presentations.isEmpty }
        #expect(presenter.presentations.map(\.title) == ["second"])
        #expect(presenter.presentations.first?.date == start.addingTimeInterval(60))
    }

    @Test("while a request is held, adds due after it that replace nothing held do not wake the loop; others do")
    func quietAddsWhileHeld() async throws {
        let loop = try await holdTea()
        defer { loop.cancel() }
        await waitUntil { await engine.sleepingUntil != nil }
        let generation = engine.wake.generation
        // Due an hour and a day later: the loop claims them after presenting "tea", without a wake-up now.
        try await engine.add(spec("later", in: 3_600), appID: app)
        let imported = (0..<3).map { BatchRequest(appID: app, spec: spec("import-\($0)", in: 86_400)) }
        _ = try await engine.add(contentsOf: imported)
        #expect(engine.wake.generation == generation)
        // Due before "tea": woken, and claimed ahead beside it.
        try await engine.add(spec("soon", in: 0.1), appID: app)
        #expect(engine.wake.generation == generation + 1)
        await waitUntil {
            let held = await engine.heldCount
            let sleeping = await engine.sleepingUntil
            return held == 2 && sleeping != nil
        }
        // A batch replacing the held "tea" (now due in an hour) wakes the loop, which drops its claim of the old one.
        let generationWithSoon = engine.wake.generation
        let replacing = BatchRequest(appID: app, spec: spec("tea", in: 3_600, title: "second"))
        _ = try await engine.add(contentsOf: [replacing] + imported)
        #expect(engine.wake.generation == generationWithSoon + 1)
        await waitUntil {
            let held = await engine.heldCount
            let sleeping = await engine.sleepingUntil
            return held == 1 && sleeping != nil
        }
        clock.advance(by: 0.25)
        await waitUntil { !presenter.presentations.isEmpty }
        await engine.deliverDue()
        #expect(presenter.presentations.map(\.identifier) == ["soon"])
        let pending = try await store.pendingRequests(appID: app).map(\.identifier).sorted()
        #expect(pending == ["import-0", "import-1", "import-2", "later", "tea"])
    }

    @Test("an add that wakes the loop but replaces nothing it holds does not make it check its held requests again")
    func heldCheckedOnlyForAddsReplacingThem() async throws {
        let loop = try await holdTea()
        defer { loop.cancel() }
        await waitUntil { await engine.sleepingUntil != nil }
        let (woken, checked) = (engine.wake.generation, engine.wake.heldGeneration)
        // Due before "tea": the loop wakes to claim it, and "tea" needs no new check against the store.
        try await engine.add(spec("soon", in: 0.1), appID: app)
        #expect(engine.wake.generation == woken + 1)
        #expect(engine.wake.heldGeneration == checked)
        await waitUntil {
            let held = await engine.heldCount
            let sleeping = await engine.sleepingUntil
            return held == 2 && sleeping != nil
        }
        let batch = [BatchRequest(appID: app, spec: spec("sooner", in: 0.05))]
        _ = try await engine.add(contentsOf: batch)
        #expect(engine.wake.generation == woken + 2)
        #expect(engine.wake.heldGeneration == checked)
        await waitUntil {
            let held = await engine.heldCount
            let sleeping = await engine.sleepingUntil
            return held == 3 && sleeping != nil
        }
        // Replacing a held request, in a batch or alone: checked before any is presented.
        _ = try await engine.add(contentsOf: [BatchRequest(appID: app, spec: spec("tea", in: 3_600, title: "second"))])
        #expect(engine.wake.heldGeneration == checked + 1)
        await waitUntil {
            let held = await engine.heldCount
            let sleeping = await engine.sleepingUntil
            return held == 2 && sleeping != nil
        }
        try await engine.add(spec("soon", in: 7_200, title: "later"), appID: app)
        #expect(engine.wake.heldGeneration == checked + 2)
        await waitUntil {
            let held = await engine.heldCount
            let sleeping = await engine.sleepingUntil
            return held == 1 && sleeping != nil
        }
        clock.advance(by: 0.25)
        await waitUntil { !presenter.presentations.isEmpty }
        await engine.deliverDue()
        #expect(presenter.presentations.map(\.identifier) == ["sooner"])
    }

    @Test("while a claim of the loop is under way, every add counts as one that may replace a held request")
    func claimUnderWayIsConservative() {
        var state = AddState()
        state.heldKeys = [AddState.heldKey(appID: "a", identifier: "held")]
        #expect(state.mayReplaceHeld(appID: "a", identifier: "held"))
        #expect(!state.mayReplaceHeld(appID: "a", identifier: "other"))
        #expect(!state.mayReplaceHeld(appID: "b", identifier: "held"))
        state.heldKeysPending = 1
        #expect(state.mayReplaceHeld(appID: "a", identifier: "other"))
    }

    @Test("a floating request held when the zone changes is released and fires at its new instant")
    func zoneChangeWhileHeld() async throws {
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
        let ten = CalendarComponents(DateComponents(hour: 10))
        try await engine.add(
            RequestSpec(identifier: "ten", content: NotificationPayload(), trigger: .calendar(ten, repeats: false, matching: .apple)),
            appID: app)
        let loop = Task { await engine.run() }
        defer { loop.cancel() }
        await waitUntil { clock.sleeperCount == 1 }
        clock.advance(by: 3_599.75)  // 09:59:59.75 UTC
        await waitUntil { await engine.heldCount == 1 && clock.sleeperCount == 2 }
        clock.setTimeZone(TimeZone(identifier: "Asia/Kolkata")!)  // 10:00 there is 04:30 UTC tomorrow
        try await engine.timeZoneDidChange()
        await waitUntil { await engine.heldCount == 0 && clock.sleeperCount == 1 }
        clock.advance(by: 0.25)
        await engine.deliverDue()
        #expect(presenter.presentations.isEmpty)
        let tomorrow = instant("2026-01-06T04:30:00Z")
        #expect(try await store.pendingRequests(appID: app).first?.nextFireDate == tomorrow)
        clock.set(to: tomorrow)
        await waitUntil { !presenter.presentations.isEmpty }
        #expect(presenter.presentations.map(\.identifier) == ["ten"])
        #expect(presenter.presentations.first?.date == tomorrow)
    }

    @Test("stopping the loop releases what it claimed ahead")
    func stopReleases() async throws {
        let loop = try await holdTea()
        loop.cancel()
        await loop.value
        let due = start.addingTimeInterval(30)
        #expect(try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10).map(\.identifier) == ["tea"])
    }

    @Test("a claim whose engine is gone (it never renews it) is delivered again after its lease")
    func neverCompleted() async throws {
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
        try await engine.add(spec("tea", in: 30), appID: app)
        // An engine claimed it ahead, 0.25 s before its instant, then died: nothing renews the claim.
        let due = start.addingTimeInterval(30)
        clock.advance(by: 29.75)
        let claimed = try await store.claimDue(
            at: clock.now, dueBy: due, leaseUntil: due.addingTimeInterval(60), limit: 10, appID: nil)
        #expect(claimed.map(\.identifier) == ["tea"])
        clock.advance(by: 59.75)
        #expect(await engine.deliverDue() == 0)
        clock.advance(by: 0.5)
        #expect(await engine.deliverDue() == 1)
        #expect(presenter.presentations.map(\.identifier) == ["tea"])
        #expect(!engine.claims.isRenewing)
    }
}
