import Foundation
import NotificationAPNsProvider
import NotificationModel
import NotificationPushGateway
import OpenUserNotificationsTesting
import Testing

/// A send waiting out a backoff on a manual clock, then cancelled or cut short by a shutdown.
@Suite("APNs client cancellation and shutdown", .timeLimit(.minutes(1)))
struct ClientLifecycleTests {
    /// An endpoint that answers 503 to everything, a client on a manual clock, and a send under way that is
    /// waiting for its first retry.
    static func waitingSend() async throws -> (
        LiveEndpoint, APNsClient, ManualNotificationClock, Task<APNsDelivery, any Error>
    ) {
        let live = try await LiveEndpoint()
        live.rules.set([try APNsFaultRule(id: "down", reason: "ServiceUnavailable")])
        let clock = ManualNotificationClock(now: live.clock.now)
        let client = try live.client { $0.clock = clock }
        let notification = await live.notification()
        let sending = Task { try await client.send(notification) }
        // Until the send sleeps on the clock: its first answer came, and nothing moves the clock but this test.
        for _ in 0..<2_000 where clock.sleeperCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(clock.sleeperCount == 1)
        return (live, client, clock, sending)
    }

    @Test("cancelled during a backoff wait: CancellationError, and no further request")
    func cancelled() async throws {
        let (live, client, _, sending) = try await Self.waitingSend()
        sending.cancel()
        await #expect(throws: CancellationError.self) { try await sending.value }
        #expect(await live.logEntries.count == 1)
        try await client.shutdown()
        await live.stop()
    }

    @Test("shut down during a backoff wait: the send ends with shutDown, not a connection failure")
    func shutDownWhileWaiting() async throws {
        let (live, client, clock, sending) = try await Self.waitingSend()
        try await client.shutdown()
        clock.advance(by: 60)
        await #expect { try await sending.value } throws: { ($0 as? APNsClientError)?.code == .shutDown }
        await live.stop()
    }
}
