import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// While the loop runs, a push shown now of an app that does not run is presented by `deliverPushes` itself and its
/// fire recorded in one transaction before it returns: no pending row, no claim
/// (NotificationScheduler+PushesOnArrival.swift). Driven by a manual clock; the tests wait for states, never for time.
@Suite("Pushes presented on arrival", .timeLimit(.minutes(1)))
struct PushesOnArrivalTests {
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

    func push(_ identifier: String, title: String? = nil, badge: Int? = nil) -> RemoteNotification {
        var content = NotificationPayload()
        content.title = title ?? identifier
        content.badge = badge
        return RemoteNotification(
            identifier: identifier, content: content, isBackground: false, contentAvailable: false,
            mutableContent: false)
    }

    func later(_ identifier: String, title: String) -> RequestSpec {
        var content = NotificationPayload()
        content.title = title
        return RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(60, repeats: false))
    }

    /// Yields until `condition` holds, or until the suite's time limit cancels the test.
    func waitUntil(_ condition: () async -> Bool) async {
        while !(await condition()) && !Task.isCancelled { await Task.yield() }
    }

    /// An engine over the gated store with its loop running (the loop is asleep when this returns).
    func running(_ presenter: any NotificationPresenter, configuration: EngineConfiguration = EngineConfiguration())
        async throws -> (NotificationScheduler, Task<Void, Never>)
    {
        let engine = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: configuration)
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert, .sound, .badge])
        let loop = Task { await engine.run() }
        await waitUntil { await engine.sleepingUntil != nil }
        return (engine, loop)
    }

    func succeeded(_ results: [Result<PushDeliveryOutcome, any Error>]) -> [PushDeliveryOutcome?] {
        results.map { try? $0.get() }
    }

    @Test("presented and recorded before deliverPushes returns: no pending row, no claim, no pass of the loop")
    func presentedBeforeAnswer() async throws {
        let presenter = RecordingPresenter()
        let (engine, loop) = try await running(presenter)
        defer { loop.cancel() }
        // Any claim the loop tried from here on would wait for ever.
        store.close(.claimDue)
        store.close(.claimAhead)
        let results = await engine.deliverPushes([(push("score", badge: 3), app)], deliver: false)
        #expect(succeeded(results) == [.scheduled])
        // All of it done when the answer comes.
        #expect(presenter.presentations.map(\.identifier) == ["score"])
        #expect(presenter.presentations.first?.date == start)
        #expect(presenter.badges[app] == 3)
        let history = try await sqlite.history(appID: app, limit: 10)
        #expect(history.map(\.outcome) == [.delivered])
        #expect(history.first?.presenter == "recording")
        #expect(history.first?.dueDate == start)
        let delivered = try await sqlite.deliveredNotifications(appID: app)
        #expect(delivered.map(\.identifier) == ["score"])
        #expect(delivered.first?.historyID == history.first?.id)
        #expect(try await sqlite.appState(appID: app)?.badge == 3)
        #expect(try await sqlite.pendingRequests(appID: app).isEmpty)
        #expect(try await sqlite.nextWakeDate() == nil)
        #expect(store.heldCount(.claimDue) == 0 && store.heldCount(.claimAhead) == 0)
        #expect(engine.claims.heldCount == 0)
    }

    @Test("a push replaces the pending request with its identifier that was there before it was presented")
    func replacesPending() async throws {
        let presenter = RecordingPresenter()
        let (engine, loop) = try await running(presenter)
        defer { loop.cancel() }
        try await engine.add(later("a", title: "local"), appID: app)
        try await engine.add(later("b", title: "other"), appID: app)
        let results = await engine.deliverPushes([(push("a", title: "pushed"), app)], deliver: false)
        #expect(succeeded(results) == [.scheduled])
        #expect(try await sqlite.pendingRequests(appID: app).map(\.identifier) == ["b"])
        #expect(try await sqlite.deliveredNotifications(appID: app).map(\.request.content.title) == ["pushed"])
    }

    /// The rule: the push counts as accepted when its batch's pending revisions are read, before the presentation. An
    /// add of its identifier committed after that (here, while it is presented, before its transaction) is kept.
    @Test("an add of the same identifier committed between the presentation and the transaction survives")
    func addDuringPresentationSurvives() async throws {
        let presenter = HookPresenter()
        let (engine, loop) = try await running(presenter)
        defer { loop.cancel() }
        try await engine.add(later("a", title: "before"), appID: app)
        let spec = later("a", title: "after")
        let added = Count()
        presenter.onPresent { [app] _ in
            // Once: the add's own delivery is not presented here (it is due in a minute).
            guard added.increment() == 1 else { return }
            try? await engine.add(spec, appID: app)
        }
        let results = await engine.deliverPushes([(push("a", title: "pushed"), app)], deliver: false)
        #expect(succeeded(results) == [.scheduled])
        #expect(added.value == 1)
        #expect(try await sqlite.pendingRequests(appID: app).map(\.spec.content.title) == ["after"])
        #expect(try await sqlite.deliveredNotifications(appID: app).map(\.request.content.title) == ["pushed"])
        #expect(try await sqlite.history(appID: app, limit: 10).map(\.outcome) == [.delivered])
    }

    /// At least once: presented, then the transaction fails; the push is answered with the store's error, so the
    /// provider sends it again, and it is shown a second time (at most once more per failure) and recorded then.
    @Test("a transaction that fails after the presentation answers an error; sent again, shown again and recorded")
    func failedCommitAnswersError() async throws {
        let presenter = RecordingPresenter()
        let (engine, loop) = try await running(presenter)
        defer { loop.cancel() }
        try await engine.add(later("a", title: "local"), appID: app)
        store.fail(.completeFires)
        let failed = await engine.deliverPushes([(push("a", title: "pushed"), app)], deliver: false)
        #expect(failed.count == 1)
        guard case .failure(let error as EngineError) = failed.first else {
            Issue.record("expected a store failure, got \(failed)")
            return
        }
        #expect(error.code == .storeFailure)
        #expect(presenter.presentations.map(\.title) == ["pushed"])
        #expect(try await sqlite.history(appID: app, limit: 10).isEmpty)
        #expect(try await sqlite.deliveredNotifications(appID: app).isEmpty)
        // Nothing of the push is stored: the request it would replace is still pending.
        #expect(try await sqlite.pendingRequests(appID: app).map(\.spec.content.title) == ["local"])
        store.recover(.completeFires)
        let again = await engine.deliverPushes([(push("a", title: "pushed"), app)], deliver: false)
        #expect(succeeded(again) == [.scheduled])
        #expect(presenter.presentations.map(\.title) == ["pushed", "pushed"])
        #expect(try await sqlite.history(appID: app, limit: 10).map(\.outcome) == [.delivered])
        #expect(try await sqlite.pendingRequests(appID: app).isEmpty)
    }

    @Test("a denied app's push is recorded unauthorized, shown nowhere, and replaces nothing")
    func deniedApp() async throws {
        let presenter = RecordingPresenter()
        let (engine, loop) = try await running(presenter)
        defer { loop.cancel() }
        try await engine.add(later("a", title: "local"), appID: app)
        try await engine.setAuthorization(appID: app, status: .denied, options: [])
        let results = await engine.deliverPushes([(push("a"), app), (push("b"), app)], deliver: false)
        #expect(succeeded(results) == [.unauthorized, .unauthorized])
        #expect(presenter.presentations.isEmpty)
        let history = try await sqlite.history(appID: app, limit: 10)
        #expect(history.map(\.outcome) == [.unauthorized, .unauthorized])
        #expect(history.allSatisfy { $0.detail == "remote notification" && $0.presenter == "none" })
        #expect(try await sqlite.pendingRequests(appID: app).map(\.identifier) == ["a"])
    }

    @Test("of two pushes of a batch with one identifier, the later is shown, as when one transaction stores both")
    func sameIdentifierInBatch() async throws {
        let presenter = RecordingPresenter()
        let (engine, loop) = try await running(presenter)
        defer { loop.cancel() }
        let results = await engine.deliverPushes(
            [(push("a", title: "first"), app), (push("b"), app), (push("a", title: "second"), app)], deliver: false)
        #expect(succeeded(results) == [.scheduled, .scheduled, .scheduled])
        #expect(presenter.presentations.map(\.title) == ["b", "second"])
        #expect(try await sqlite.history(appID: app, limit: 10).count == 2)
        let listed = try await sqlite.deliveredNotifications(appID: app)
        #expect(Set(listed.map(\.request.content.title)) == ["b", "second"])
    }

    /// The stored path answers once the push is stored, before it is presented and recorded: with recordings held,
    /// `deliverPushes` returns all the same.
    @Test("a push of a running app, or with presenting on arrival off, is stored claimed and presented by the loop")
    func storedPathKept() async throws {
        for foreground in [true, false] {
            let sqlite = try SQLiteNotificationStore()
            let store = GatedStore(sqlite)
            let presenter = RecordingPresenter()
            var configuration = EngineConfiguration()
            configuration.presentsPushesOnArrival = foreground
            let engine = NotificationScheduler(
                store: store, clock: clock, presenter: presenter, configuration: configuration)
            try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
            if foreground { await engine.attach(ShowingApp(), appID: app) }
            let loop = Task { await engine.run() }
            await waitUntil { await engine.sleepingUntil != nil }
            store.close(.completeFires)
            let results = await engine.deliverPushes([(push("a"), app)], deliver: false)
            #expect(succeeded(results) == [.scheduled])
            await waitUntil { store.waitingCount(.completeFires) == 1 }
            #expect(presenter.presentations.map(\.identifier) == ["a"])
            #expect(try await sqlite.history(appID: app, limit: 10).isEmpty)
            store.open(.completeFires)
            await waitUntil { (try? await sqlite.history(appID: app, limit: 10).count) == 1 }
            loop.cancel()
            await loop.value
        }
    }

    /// A count shared with a presenter's hook.
    final class Count: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        /// Adds one and returns the new count.
        func increment() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }

    /// A running app that shows what it is asked about.
    struct ShowingApp: ForegroundApp {
        func willPresent(_ notification: DeliveredNotification) async -> PresentationSet? { [.banner, .list] }
        func didReceive(_ response: ResponseSpec) async -> Bool { true }
    }
}
