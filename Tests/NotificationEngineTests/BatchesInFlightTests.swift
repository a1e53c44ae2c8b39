import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Testing

/// `EngineConfiguration.batchesInFlight`: a pass of the loop claims its next batch while the batches before it are
/// still being presented, up to that many at once, and returns once all are presented. A presenter that blocks until
/// the test opens its gate shows how many presentations began; a second store on the same file shows how many due
/// requests are still unclaimed while the pass waits.
@Suite("Claimed batches presented at the same time", .timeLimit(.minutes(5)))
struct BatchesInFlightTests {
    let start = instant("2026-01-05T09:00:00Z")

    /// Yields until `condition` holds (the suite's time limit ends a test that would wait forever).
    func waitUntil(_ condition: () async -> Bool) async {
        while !(await condition()) { await Task.yield() }
    }

    @Test(
        "batches of 2, eight apps due at once: the pass presents batchesInFlight batches before any answer",
        arguments: [(1, 2), (3, 6), (4, 8)])
    func overlappingBatches(batchesInFlight: Int, startedBeforeAnswers: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("in-flight-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let clock = ManualNotificationClock(now: start)
        let gate = GatePresenter()
        var configuration = EngineConfiguration(pendingCap: nil)
        configuration.claimAhead = 0
        configuration.claimBatch = 2
        configuration.batchesInFlight = batchesInFlight
        let store = try SQLiteNotificationStore(path: path)
        let engine = NotificationScheduler(store: store, clock: clock, presenter: gate, configuration: configuration)
        let apps = (1...8).map { "com.example.app\($0)" }
        for app in apps {
            try await engine.setAuthorization(appID: app, status: .authorized, options: [.alert])
            try await engine.add(
                RequestSpec(identifier: app, content: NotificationPayload(), trigger: .timeInterval(10, repeats: false)),
                appID: app)
        }
        clock.advance(by: 10)
        let delivering = Task { await engine.deliverDue() }
        await waitUntil { gate.started.count == startedBeforeAnswers }
        // The pass waits for an answer before it claims more: what it has not claimed is still due now.
        let observer = try SQLiteNotificationStore(path: path)
        let unclaimed = 8 - startedBeforeAnswers
        if unclaimed > 0 {
            #expect(try await observer.nextWakeDate() == clock.now)
        }
        #expect(gate.started.count == startedBeforeAnswers)
        gate.open()
        #expect(await delivering.value == 8)
        #expect(Set(gate.started) == Set(apps))
        for app in apps {
            #expect(try await observer.history(appID: app, limit: 5).map(\.outcome) == [.delivered])
            #expect(try await observer.pendingRequests(appID: app).isEmpty)
        }
        try observer.close()
        try store.close()
    }
}
