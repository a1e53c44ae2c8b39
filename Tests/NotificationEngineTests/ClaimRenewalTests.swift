import Foundation
import Logging
@testable import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// A live engine renews the claims it holds every third of a lease (ClaimRenewal), so another engine on the same store
/// takes a fire over only when the first one died or lost its store for longer than a lease. Two engines share one
/// SQLite file through two stores; a manual clock drives every step, and the tests wait for states (a renewal visible
/// in the store, the renewal asleep on the clock), never for time to pass.
@Suite("Renewing the claims a live engine holds", .timeLimit(.minutes(5)))
struct ClaimRenewalTests {
    let start = instant("2026-01-05T09:00:00Z")
    let app = "com.example.app"
    let lease: TimeInterval = 30
    let folder: URL
    let clock: ManualNotificationClock

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("claim-renewal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        clock = ManualNotificationClock(now: start)
    }

    /// An engine on its own store of the suite's database file.
    func engine(
        presenter: any NotificationPresenter, events: ClaimEvents? = nil
    ) throws -> (NotificationScheduler, SQLiteNotificationStore) {
        let store = try SQLiteNotificationStore(path: folder.appendingPathComponent("store.sqlite").path)
        var configuration = EngineConfiguration(pendingCap: nil, claimLease: lease)
        configuration.claimAhead = 0
        if let events { configuration.claimRenewalObserver = { event in events.append(event) } }
        let engine = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: configuration)
        return (engine, store)
    }

    /// Yields until `condition` holds (the suite's time limit ends a test that would wait forever).
    func waitUntil(_ condition: () async -> Bool) async {
        while !(await condition()) { await Task.yield() }
    }

    /// Whether the earliest instant the store may have something due (here: the one claim's lease end) is `date`.
    static func nextWake(of store: SQLiteNotificationStore, is date: Date) async -> Bool {
        guard let next = try? await store.nextWakeDate() else { return false }
        return abs(next.timeIntervalSince(date)) < 0.001
    }

    /// Adds "tea" due in 10 s through `engine`, moves the clock to its instant and starts delivering it in a task of
    /// its own; returns once the presenter has it and the claim's renewal sleeps on the clock.
    func startDelivering(_ engine: NotificationScheduler, gate: GatePresenter) async throws -> Task<Int, Never> {
        try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert, .sound])
        let tea = RequestSpec(
            identifier: "tea", content: NotificationPayload(), trigger: .timeInterval(10, repeats: false))
        try await engine.add(tea, appID: app)
        clock.advance(by: 10)
        let delivering = Task { await engine.deliverDue() }
        await waitUntil { gate.started == ["tea"] && clock.sleeperCount == 1 }
        return delivering
    }

    @Test("an engine stuck presenting for more than three leases keeps its claim: the fire is presented and recorded once")
    func stuckPresenterKeepsItsClaim() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let gate = GatePresenter()
        let (first, firstStore) = try engine(presenter: gate)
        let recorder = RecordingPresenter()
        let (second, secondStore) = try engine(presenter: recorder)
        let delivering = try await startDelivering(first, gate: gate)
        #expect(first.claims.isRenewing)
        let claimedAt = clock.now
        // Ten thirds of a lease: without renewal the claim would end at the third step and the second engine would
        // present the fire again.
        for _ in 1...10 {
            clock.advance(by: lease / 3)
            let now = clock.now
            await waitUntil { await Self.nextWake(of: secondStore, is: now.addingTimeInterval(lease)) }
            await waitUntil { clock.sleeperCount == 1 }
            #expect(await second.deliverDue() == 0)
        }
        #expect(clock.now.timeIntervalSince(claimedAt) > 3 * lease)
        #expect(recorder.presentations.isEmpty)
        gate.open()
        #expect(await delivering.value == 1)
        let history = try await firstStore.history(appID: app, limit: 10)
        #expect(history.map(\.outcome) == [.delivered])
        #expect(try await secondStore.pendingRequests(appID: app).isEmpty)
        // Nothing held: the renewal stopped, nothing sleeps on the clock, and nothing is due again.
        #expect(!first.claims.isRenewing)
        #expect(clock.sleeperCount == 0)
        clock.advance(by: 2 * lease)
        #expect(await second.deliverDue() == 0)
        #expect(await first.deliverDue() == 0)
        #expect(gate.started == ["tea"])
        #expect(recorder.presentations.isEmpty)
    }

    @Test("an engine that cannot renew (its store is gone) keeps presenting; its claim expires and the fire is delivered again")
    func failedRenewalExpires() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let gate = GatePresenter()
        let events = ClaimEvents()
        let (first, firstStore) = try engine(presenter: gate, events: events)
        let recorder = RecordingPresenter()
        let (second, _) = try engine(presenter: recorder)
        let delivering = try await startDelivering(first, gate: gate)
        try firstStore.close()
        // Each renewal fails (logged, and told to the observer) and the renewal goes back to sleep, a third of a lease
        // later.
        for attempt in 1...3 {
            clock.advance(by: lease / 3)
            await waitUntil { clock.sleeperCount == 1 && events.all.count == attempt }
        }
        #expect(events.all == Array(repeating: .renewalFailed(claims: 1), count: 3))
        // The lease has ended: the other engine delivers the fire (at least once).
        #expect(await second.deliverDue() == 1)
        #expect(recorder.presentations.map(\.identifier) == ["tea"])
        gate.open()
        #expect(await delivering.value == 1)  // presented; recording it failed (logged)
        #expect(!first.claims.isRenewing)
    }

    @Test("a renewal that finds a held claim no longer this engine's tells the observer it was taken over, and stops")
    func takenOverIsReported() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteNotificationStore(path: folder.appendingPathComponent("store.sqlite").path)
        let events = ClaimEvents()
        let renewal = ClaimRenewal(
            store: store, clock: clock, lease: lease, logger: Logger(label: "test"),
            observer: { events.append($0) })
        // A request pending and claimed by nobody (as one another engine took over and recorded would be, from this
        // engine's side): the store renews none of it for this engine.
        let tea = PendingRequest(
            appID: app, spec: RequestSpec(identifier: "tea", content: NotificationPayload(), trigger: nil),
            addedAt: start, nextFireDate: start)
        _ = try await store.insertPending(tea, cap: nil, at: start)
        let revision = try #require(try await store.pendingRequests(appID: app).first?.revision)
        renewal.hold([revision])
        await waitUntil { clock.sleeperCount == 1 }
        clock.advance(by: lease / 3)
        // The renewal stops (under its lock), then tells the observer (outside it): wait for both.
        await waitUntil { !renewal.isRenewing && !events.all.isEmpty }
        #expect(events.all == [.takenOver(claims: 1)])
        #expect(renewal.heldCount == 0)
        try store.close()
    }
}

/// The claim renewal events an engine reported, in order.
final class ClaimEvents: Sendable {
    private let events = Mutex<[ClaimRenewalEvent]>([])
    var all: [ClaimRenewalEvent] { events.withLock { $0 } }
    func append(_ event: ClaimRenewalEvent) { events.withLock { $0.append(event) } }
}
