import Foundation
import NotificationAPNsProvider
import NotificationModel
import NotificationPushGateway
import OpenUserNotificationsTesting
import TestPrograms
import Testing

/// The provider client against `unotifyd`'s APNs endpoint over TLS (HTTP/2 by ALPN), with provider tokens checked:
/// the loop closed on the devices' side.
@Suite("APNs client against the local APNs endpoint", .timeLimit(.minutes(2)))
struct APNsClientEndpointTests {
    @Test("a push is delivered: 200, and the devices' side shows it with the same apns-id")
    func delivered() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        let apnsID = UUID()
        var notification = await live.notification("Lunch?", apnsID: apnsID)
        notification.collapseID = "lunch"
        notification.priority = .considerate
        notification.expiration = Date(timeIntervalSince1970: 1_800_000_000)
        let delivery = try await client.send(notification)
        #expect(delivery.outcome == .delivered(uniqueID: nil))
        #expect(delivery.apnsID == apnsID && delivery.attempts == 1)
        #expect(live.shown == ["Lunch?"])
        let request = try #require(live.requests.first)
        #expect(request.path == "/3/device/\(live.token.hex)")
        #expect(request.header("apns-id") == apnsID.uuidString.lowercased())
        #expect(request.header("apns-topic") == testAppID)
        #expect(request.header("apns-push-type") == "alert")
        #expect(request.header("apns-priority") == "5")
        #expect(request.header("apns-expiration") == "1800000000")
        #expect(request.header("apns-collapse-id") == "lunch")
        #expect(request.header("authorization")?.hasPrefix("bearer ey") == true)
        try await client.shutdown()
        await live.stop()
    }

    @Test("a token whose app unregistered: 410 Unregistered with the endpoint's timestamp, the device gone")
    func unregistered() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        let unregisteredAt = live.system.clock.now
        _ = try await live.system.scheduler.unregisterForRemoteNotifications(appID: testAppID)
        let delivery = try await client.send(live.notification())
        guard case .deviceGone(let reason, let since) = delivery.outcome else {
            Issue.record("expected the device gone, got \(delivery.outcome)")
            return
        }
        #expect(reason == "Unregistered" && delivery.attempts == 1)
        let since2 = try #require(since)
        #expect(abs(since2.timeIntervalSince(unregisteredAt)) < 0.001)
        #expect(live.shown.isEmpty)
        try await client.shutdown()
        await live.stop()
    }

    /// Requests the endpoint refuses with a 400: each is rejected after one attempt, never retried.
    static let badRequests: [(String, @Sendable (inout APNsNotification) -> Void)] = [
        ("DeviceTokenNotForTopic", { $0.topic = "com.example.someone-else" }),
        ("BadDeviceToken", { $0.deviceToken = String(repeating: "ab", count: 32) }),
        (
            "BadPriority",
            {
                $0.pushType = .background; $0.priority = .immediate
            }
        ),
    ]

    @Test("400 answers are rejected with their reason after one attempt", arguments: 0..<3)
    func rejected(_ index: Int) async throws {
        let (reason, change) = Self.badRequests[index]
        let live = try await LiveEndpoint()
        let client = try live.client()
        var notification = await live.notification()
        change(&notification)
        let delivery = try await client.send(notification)
        #expect(delivery.outcome == .rejected(APNsDelivery.Answer(status: 400, reason: reason)))
        #expect(delivery.attempts == 1 && live.clock.sleeps.isEmpty)
        #expect(await live.logEntries.count == 1)
        #expect(live.shown.isEmpty)
        try await client.shutdown()
        await live.stop()
    }

    @Test("429 TooManyRequests is retried after backoff with the same apns-id until it is delivered, once")
    func tooManyRequests() async throws {
        let live = try await LiveEndpoint()
        live.rules.set([try APNsFaultRule(id: "busy", reason: "TooManyRequests", token: live.token.hex)])
        // The endpoint stops refusing during the second wait.
        live.clock.onSleep.withLock { $0 = { count in if count == 2 { live.rules.set([]) } } }
        let client = try live.client()
        let delivery = try await client.send(live.notification("After backoff"))
        #expect(delivery.isDelivered)
        #expect(delivery.answers.map(\.description) == ["429 TooManyRequests", "429 TooManyRequests", "200"])
        // The default policy: 0.5 s then 1 s, each shortened by up to half at random.
        let sleeps = live.clock.sleeps
        #expect(sleeps.count == 2)
        #expect((0.25...0.5).contains(sleeps[0]) && (0.5...1.0).contains(sleeps[1]), "\(sleeps)")
        let entries = await live.logEntries
        #expect(entries.count == 3)
        #expect(Set(entries.compactMap(\.apnsID)) == [delivery.apnsID.uuidString.lowercased()])
        #expect(live.shown == ["After backoff"])
        try await client.shutdown()
        await live.stop()
    }

    @Test(
        "503 and 500 are retried with exponential, capped delays until the attempts are spent",
        arguments: [
            "ServiceUnavailable", "InternalServerError",
        ])
    func givesUp(_ reason: String) async throws {
        let live = try await LiveEndpoint()
        live.rules.set([try APNsFaultRule(id: "down", reason: reason)])
        let client = try live.client {
            $0.retryPolicy.maximumAttempts = 5
            $0.retryPolicy.initialDelay = 1
            $0.retryPolicy.maximumDelay = 3
            $0.retryPolicy.jitter = 0
        }
        let delivery = try await client.send(live.notification())
        let status = reason == "ServiceUnavailable" ? 503 : 500
        #expect(delivery.outcome == .gaveUp(APNsDelivery.Answer(status: status, reason: reason)))
        #expect(delivery.attempts == 5)
        #expect(live.clock.sleeps == [1, 2, 3, 3])
        let entries = await live.logEntries
        #expect(entries.count == 5 && Set(entries.compactMap(\.apnsID)).count == 1)
        #expect(live.shown.isEmpty)
        try await client.shutdown()
        await live.stop()
    }

    @Test("connection failures are retried, then reported without a status")
    func connectionRefused() async throws {
        // Nothing listens on port 1 of the loopback address.
        var configuration = APNsClientConfiguration(server: APNsServer(host: "127.0.0.1", port: 1))
        let clock = SteppingClock()
        configuration.clock = clock
        configuration.retryPolicy.maximumAttempts = 3
        configuration.retryPolicy.jitter = 0
        let folder = try temporaryFolder("apns-refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try APNsSigningKey(p8File: try await makeAuthKey(keyID: testKeyID, in: folder), teamID: testTeamID)
        let client = try APNsClient(configuration: configuration, key: key)
        let delivery = try await client.send(
            APNsNotification(
                deviceToken: String(repeating: "ab", count: 32), topic: testAppID,
                payload: Data(#"{"aps":{"alert":"Hi"}}"#.utf8)))
        guard case .gaveUp(let last) = delivery.outcome else {
            Issue.record("expected to give up, got \(delivery.outcome)")
            return
        }
        #expect(last.status == nil && last.connectionError != nil)
        #expect(delivery.attempts == 3 && clock.sleeps == [0.5, 1])
        try await client.shutdown()
    }

    @Test("an oversize payload is refused before anything is sent")
    func oversize() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        var notification = await live.notification()
        let padding = String(repeating: "x", count: 4_096)
        notification.payload = Data(#"{"aps":{"alert":"\#(padding)"}}"#.utf8)
        await #expect {
            try await client.send(notification)
        } throws: { error in
            guard let error = error as? APNsClientError, error.code == .payloadTooLarge else { return false }
            return error.message.contains("4096")
        }
        #expect(await live.logEntries.isEmpty)
        try await client.shutdown()
        await live.stop()
    }

    @Test("200 pushes sent at once share one HTTP/2 connection and all arrive")
    func manyOverOneConnection() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        let count = 200
        let deliveries = try await withThrowingTaskGroup(of: APNsDelivery.self) { group in
            for index in 0..<count { group.addTask { try await client.send(live.notification("push \(index)")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(
            deliveries.count == count && deliveries.allSatisfy { $0.isDelivered && $0.attempts == 1 },
            "not delivered at the first attempt: \(deliveries.filter { !($0.isDelivered && $0.attempts == 1) }.map(\.answers))")
        let entries = await live.logEntries
        #expect(entries.count == count)
        #expect(Set(entries.map(\.connection)).count == 1, "connections: \(Set(entries.map(\.connection)))")
        #expect(Set(live.shown) == Set((0..<count).map { "push \($0)" }))
        try await client.shutdown()
        await live.stop()
    }

    @Test("a token signed for another team: 403 InvalidProviderToken, rejected after one attempt")
    func invalidProviderToken() async throws {
        let live = try await LiveEndpoint()
        let client = try APNsClient(
            configuration: live.clientConfiguration, key: APNsSigningKey(p8File: live.keyPath, teamID: "OTHERTEAM1"))
        let delivery = try await client.send(live.notification())
        #expect(delivery.outcome == .rejected(APNsDelivery.Answer(status: 403, reason: "InvalidProviderToken")))
        #expect(delivery.attempts == 1 && live.shown.isEmpty)
        try await client.shutdown()
        await live.stop()
    }

    @Test("after the endpoint shuts down (GOAWAY) and comes back, the next push goes out on a new connection")
    func endpointRestart() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        #expect(try await client.send(live.notification("before")).isDelivered)
        await live.endpoint.stop()
        let restarted = try await live.restart()
        let delivery = try await client.send(live.notification("after"))
        #expect(delivery.isDelivered, "\(delivery.answers)")
        #expect(live.shown == ["before", "after"])
        let connections = await live.logEntries.map(\.connection)
        #expect(connections.count == 2 && connections[0] != connections[1])
        try await client.shutdown()
        await restarted.stop()
        await live.stop()
    }

    @Test("more pushes than the server's concurrent streams wait for a stream on the same connection")
    func streamLimit() async throws {
        let live = try await LiveEndpoint { $0.maximumConcurrentStreams = 8 }
        let client = try live.client()
        let deliveries = try await withThrowingTaskGroup(of: APNsDelivery.self) { group in
            for index in 0..<60 { group.addTask { try await client.send(live.notification("push \(index)")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(
            deliveries.allSatisfy { $0.isDelivered && $0.attempts == 1 },
            "not delivered at the first attempt: \(deliveries.filter { !($0.isDelivered && $0.attempts == 1) }.map(\.answers))")
        #expect(Set(await live.logEntries.map(\.connection)).count == 1)
        #expect(live.shown.count == 60)
        try await client.shutdown()
        await live.stop()
    }

    @Test("a client that was shut down refuses to send")
    func shutDown() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        try await client.shutdown()
        await #expect {
            try await client.send(live.notification())
        } throws: { ($0 as? APNsClientError)?.code == .shutDown }
        await live.stop()
    }
}
