import Foundation
@testable import NotificationEngine
import NotificationModel
import NotificationServer
@testable import NotificationStorePostgres
import OpenUserNotificationsTesting
import PushTestSupport
import Testing

/// Two workers on one database, one manual clock: the worker whose APNs send hangs renews its claim every third of a
/// lease, so the other never sends the fire, however long the send takes. Counted at the devices' side.
@Suite("Server workers renewing their claims", .timeLimit(.minutes(5)))
struct ClaimRenewalWorkerTests {
    /// Whether the store's earliest instant of interest (here: the one claim's lease end) is `date`.
    static func nextWake(of store: PostgresNotificationStore, is date: Date) async -> Bool {
        guard let next = try? await store.nextWakeDate() else { return false }
        return abs(next.timeIntervalSince(date)) < 0.001
    }

    @Test("a worker whose send hangs for more than three leases keeps the fire: it arrives once, and is recorded once")
    func hangingSendIsNotTakenOver() async throws {
        let side = try await DeviceSide()
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        let lease: TimeInterval = 30
        try await WorkerDeliveryTests().withTwoWorkers(
            side: side, clock: clock, configuration: EngineConfiguration(claimLease: lease),
            adjustClient: { $0.requestTimeout = 600 }  // the send hangs as long as the test says, not 30 s
        ) { a, b, ready in
            try await a.devices.register(registration("phone", zone: "Europe/Paris"))
            try await a.devices.schedule(spec("slow", .timeInterval(60, repeats: false)), forDevice: "phone")
            // Both loops asleep on their timers.
            #expect(await eventually { ready.contains("a") && ready.contains("b") && clock.sleeperCount == 2 })
            side.holdAnswers()
            clock.advance(by: 60)
            // One worker claimed and sent it; the send hangs.
            try #require(await eventually { side.arrived == ["slow"] }, "arrived: \(side.arrived)")
            let claimedAt = clock.now
            for _ in 1...10 {
                clock.advance(by: lease / 3)
                let now = clock.now
                // Renewed at this instant (the renewals keep to their schedule, a third of a lease apart).
                try #require(await eventually { await Self.nextWake(of: a.store, is: now.addingTimeInterval(lease)) })
            }
            #expect(clock.now.timeIntervalSince(claimedAt) > 3 * lease)
            #expect(side.arrived == ["slow"], "the other worker never sent it")
            side.releaseAnswers()
            #expect(await eventually { side.received.map(\.title) == ["slow"] })
            #expect(try await eventually { try await a.store.history(appID: nil, limit: 10).count == 1 })
            #expect(try await b.devices.pendingRequests(forDevice: "phone").isEmpty)
            // Nothing held: the renewals stopped.
            #expect(await eventually { !a.scheduler.claims.isRenewing && !b.scheduler.claims.isRenewing })
            clock.advance(by: 2 * lease)
            #expect(try await a.store.pendingCount() == 0)
            #expect(side.arrived == ["slow"])
        }
        await side.stop()
    }

    @Test(
        "a worker whose claim another worker took over while it sent counts it in unotify_worker_claims_taken_over_total and stops renewing it"
    )
    func takeoverIsCounted() async throws {
        let side = try await DeviceSide()
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        let lease: TimeInterval = 30
        try await WorkerDeliveryTests().withTwoWorkers(
            side: side, clock: clock, configuration: EngineConfiguration(claimLease: lease),
            adjustClient: { $0.requestTimeout = 600 }
        ) { a, b, ready in
            try await a.devices.register(registration("phone", zone: "Europe/Paris"))
            try await a.devices.schedule(spec("slow", .timeInterval(60, repeats: false)), forDevice: "phone")
            #expect(await eventually { ready.contains("a") && ready.contains("b") && clock.sleeperCount == 2 })
            side.holdAnswers()
            clock.advance(by: 60)
            try #require(await eventually { side.arrived == ["slow"] }, "arrived: \(side.arrived)")
            #expect(try await Self.takenOver(a, at: clock.now) + Self.takenOver(b, at: clock.now) == 0)
            // What a third worker does once the sender's lease has ended: the row's claim becomes its own. (The
            // sender's lease cannot end on its own here: a live worker renews it.)
            try await a.store.client.query(
                "UPDATE pending SET claim_owner = 'worker-c' WHERE claim_owner IS NOT NULL")
            clock.advance(by: lease / 3)
            // The sender's next renewal finds the row no longer its own: counted once, and no longer renewed.
            let counted = try await eventually {
                try await Self.takenOver(a, at: clock.now) + Self.takenOver(b, at: clock.now) == 1
            }
            #expect(counted)
            #expect(await eventually { !a.scheduler.claims.isRenewing && !b.scheduler.claims.isRenewing })
            side.releaseAnswers()
            #expect(await eventually { side.received.map(\.title) == ["slow"] })
        }
        await side.stop()
    }

    /// `unotify_worker_claims_taken_over_total` as the worker's `/metrics` shows it.
    static func takenOver(_ worker: ServerWorker, at date: Date) async throws -> Int {
        let text = worker.presenter.metrics.exposition(cluster: try await worker.store.clusterStatistics(at: date))
        let line = text.split(separator: "\n").first { $0.hasPrefix("unotify_worker_claims_taken_over_total{") }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? -1
    }
}
