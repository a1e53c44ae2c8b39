import Foundation
import NotificationAPNsProvider
import NotificationModel
import TestPrograms
import Testing

/// Answers the APNs endpoint never gives, from a scripted HTTP/2 server over TLS.
@Suite("APNs client against scripted answers", .timeLimit(.minutes(1)))
struct ScriptedAnswerTests {
    static func run(
        _ script: [ScriptedAPNsServer.Answer], adjust: (inout APNsClientConfiguration) -> Void = { _ in },
        _ body: (APNsClient, ScriptedAPNsServer, SteppingClock) async throws -> Void
    ) async throws {
        let folder = try temporaryFolder("apns-scripted")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let server = try await ScriptedAPNsServer(certificate: certificate, key: key, script: script)
        var configuration = APNsClientConfiguration(server: APNsServer(host: "localhost", port: server.port))
        configuration.trustRoots(pemFile: certificate)
        let clock = SteppingClock()
        configuration.clock = clock
        configuration.jitterSeed = 7
        adjust(&configuration)
        let signingKey = try APNsSigningKey(
            p8File: try await makeAuthKey(keyID: testKeyID, in: folder), teamID: testTeamID)
        let client = try APNsClient(configuration: configuration, key: signingKey)
        do {
            try await body(client, server, clock)
        } catch {
            try await client.shutdown()
            await server.stop()
            throw error
        }
        try await client.shutdown()
        await server.stop()
    }

    static let notification = APNsNotification(
        deviceToken: String(repeating: "ab", count: 32), topic: "com.example.app",
        payload: Data(#"{"aps":{"alert":"Hi"}}"#.utf8))

    @Test("a 200 with apns-unique-id: delivered with the unique id")
    func uniqueID() async throws {
        let unique = "a8d4b2f1-0c3e-4d5f-9a6b-7c8d9e0f1a2b"
        try await Self.run([.init(status: 200, headers: [("apns-unique-id", unique)])]) { client, server, _ in
            let delivery = try await client.send(Self.notification)
            #expect(delivery.outcome == .delivered(uniqueID: unique))
            #expect(server.requests.count == 1)
        }
    }

    @Test("retry-after lengthens the backoff to it, within the cap")
    func retryAfter() async throws {
        let script: [ScriptedAPNsServer.Answer] = [
            .init(status: 503, headers: [("retry-after", "4")], body: #"{"reason":"ServiceUnavailable"}"#),
            .init(status: 429, headers: [("retry-after", "120")], body: #"{"reason":"TooManyRequests"}"#),
            .init(status: 200),
        ]
        try await Self.run(script) { client, server, clock in
            let delivery = try await client.send(Self.notification)
            #expect(delivery.isDelivered && delivery.attempts == 3)
            #expect(clock.sleeps == [4, 30], "the server's 4 s, then 120 s capped at the policy's 30 s")
            #expect(Set(server.requests.compactMap { $0.first(name: "apns-id") }).count == 1)
        }
    }

    @Test("410 ExpiredToken without a timestamp: the device is gone, since unknown")
    func expiredToken() async throws {
        try await Self.run([.init(status: 410, body: #"{"reason":"ExpiredToken"}"#)]) { client, _, _ in
            let delivery = try await client.send(Self.notification)
            #expect(delivery.outcome == .deviceGone(reason: "ExpiredToken", since: nil))
        }
    }

    @Test("a 502 with a proxy's HTML body is retried; an unknown 4xx is rejected with its status")
    func foreignAnswers() async throws {
        let script: [ScriptedAPNsServer.Answer] = [
            .init(status: 502, body: "<html>Bad gateway</html>"), .init(status: 418, body: "teapot"),
        ]
        try await Self.run(script) { client, _, _ in
            let delivery = try await client.send(Self.notification)
            #expect(delivery.outcome == .rejected(APNsDelivery.Answer(status: 418)))
            #expect(delivery.answers.map(\.description) == ["502", "418"])
        }
    }
}
