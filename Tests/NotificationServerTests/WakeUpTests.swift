import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PushTestSupport
import Testing

@Suite("Server workers waking on LISTEN/NOTIFY", .timeLimit(.minutes(5)))
struct WakeUpTests {
    @Test("a request added through worker A is delivered by worker B, asleep with its timer far off, on NOTIFY alone")
    func notifyWakesAnotherWorker() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        // The manual clock never moves in this test: B's timer cannot fire.
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        try await WorkerDeliveryTests().withTwoWorkers(side: side, clock: clock, running: (false, true)) { a, b, ready in
            try await a.devices.register(registration("phone", zone: "Europe/Paris"))
            // Something due tomorrow, so B's loop sleeps on its timer (one sleeper on the clock) once it is idle.
            try await a.devices.schedule(spec("tomorrow", .timeInterval(86_400, repeats: false)), forDevice: "phone")
            #expect(await eventually { ready.contains("b") && clock.sleeperCount == 1 })
            try await a.devices.schedule(spec("now", nil), forDevice: "phone")
            #expect(await eventually(within: 120) { side.received.map(\.title) == ["now"] })
            #expect(clock.now == instant("2026-01-05T07:00:00Z"))
            #expect(try await eventually {
                try await b.devices.pendingRequests(forDevice: "phone").map(\.identifier) == ["tomorrow"]
            })
        }
        await side.stop()
    }

    @Test("a batch inserted straight into the store (not through any engine) wakes a listening worker")
    func batchInsertWakes() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
        try await WorkerDeliveryTests().withTwoWorkers(side: side, clock: clock, running: (false, true)) { a, _, ready in
            let device = try await a.devices.register(registration("phone", zone: "Europe/Paris"))
            try await a.devices.schedule(spec("tomorrow", .timeInterval(86_400, repeats: false)), forDevice: "phone")
            #expect(await eventually { ready.contains("b") && clock.sleeperCount == 1 })
            let requests = (0..<5).map { index in
                PendingRequest(appID: device.appID, spec: spec("batch-\(index)", nil), addedAt: clock.now, nextFireDate: clock.now)
            }
            _ = try await a.store.insertPending(batch: requests, cap: nil, at: clock.now)
            #expect(await eventually(within: 120) { side.received.count == 5 })
            #expect(Set(side.received.map(\.title)) == Set((0..<5).map { "batch-\($0)" }))
        }
        await side.stop()
    }
}
