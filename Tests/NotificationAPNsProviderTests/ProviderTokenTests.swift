import Foundation
import NotificationAPNsProvider
import NotificationPushGateway
import TestPrograms
import Testing

/// Provider tokens: made from a `.p8` key, kept for 50 minutes, replaced before APNs's hour and never within 20
/// minutes, and replaced once when the server calls one expired. Time is a manual clock shared with the endpoint.
@Suite("APNs provider tokens", .timeLimit(.minutes(2)))
struct ProviderTokenTests {
    @Test("the endpoint sees the same token for 50 minutes, then a new one it accepts")
    func refreshedOnSchedule() async throws {
        let live = try await LiveEndpoint()
        let client = try live.client()
        for step in [0, 10 * 60, 39 * 60, 11 * 60] {  // at 0, 10, 49 and 60 minutes
            live.clock.advance(by: TimeInterval(step))
            #expect(try await client.send(live.notification()).isDelivered)
        }
        let tokens = live.requests.compactMap { $0.header("authorization") }
        #expect(tokens.count == 4)
        #expect(tokens[0] == tokens[1] && tokens[1] == tokens[2] && tokens[2] != tokens[3])
        #expect(await client.signer.tokensMade == 2)
        try await client.shutdown()
        await live.stop()
    }

    @Test("403 ExpiredProviderToken: a new token, the same notification once more, delivered")
    func expiredProviderToken() async throws {
        // The endpoint takes tokens to be good for 35 minutes only; the client keeps them 50.
        let live = try await LiveEndpoint(tokenLifetime: 35 * 60)
        let client = try live.client()
        #expect(try await client.send(live.notification("first")).isDelivered)
        live.clock.advance(by: 40 * 60)
        let delivery = try await client.send(live.notification("second"))
        #expect(delivery.isDelivered)
        #expect(delivery.answers.map(\.description) == ["403 ExpiredProviderToken", "200"])
        #expect(live.clock.sleeps.isEmpty)
        #expect(await client.signer.tokensMade == 2)
        let entries = await live.logEntries
        #expect(entries.count == 3 && entries[1].apnsID == entries[2].apnsID)
        #expect(live.shown == ["first", "second"])
        try await client.shutdown()
        await live.stop()
    }

    @Test("403 ExpiredProviderToken on a token younger than 20 minutes is rejected, not refreshed")
    func expiredTooYoung() async throws {
        let live = try await LiveEndpoint(tokenLifetime: 5 * 60)
        let client = try live.client()
        #expect(try await client.send(live.notification()).isDelivered)
        live.clock.advance(by: 10 * 60)
        let delivery = try await client.send(live.notification())
        #expect(delivery.outcome == .rejected(APNsDelivery.Answer(status: 403, reason: "ExpiredProviderToken")))
        let tokensMade = await client.signer.tokensMade
        #expect(delivery.attempts == 1 && tokensMade == 1)
        try await client.shutdown()
        await live.stop()
    }

    @Test("the signer on its own: refresh interval limits, shared refreshes, and the JWT's fields")
    func signer() async throws {
        let folder = try temporaryFolder("apns-signer")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try await makeAuthKey(keyID: testKeyID, in: folder)
        let key = try APNsSigningKey(p8File: path, teamID: testTeamID)
        #expect(key.keyID == testKeyID)
        let clock = SteppingClock()
        #expect(throws: APNsClientError.self) {
            try ProviderTokenSigner(key: key, refreshInterval: 19 * 60, clock: clock)
        }
        #expect(throws: APNsClientError.self) {
            try ProviderTokenSigner(key: key, refreshInterval: 60 * 60, clock: clock)
        }
        let signer = try ProviderTokenSigner(key: key, clock: clock)
        let first = try await signer.token()
        #expect(first.issuedAt == clock.now)
        // The endpoint's own verifier accepts it: ES256, kid, iss, iat.
        var verifier = try await ProviderTokenVerifier(authKeys: path, teamID: testTeamID)
        verifier.now = { clock.now }
        #expect(await verifier.check(authorization: "bearer \(first.value)") == nil)
        // Too young to replace.
        clock.advance(by: 19 * 60)
        #expect(try await signer.refresh(replacing: first) == nil)
        // Old enough: one new token, which a second caller holding the stale one also gets.
        clock.advance(by: 60)
        let second = try #require(try await signer.refresh(replacing: first))
        #expect(second != first && second.issuedAt == clock.now)
        #expect(try await signer.refresh(replacing: first) == second)
        #expect(try await signer.token() == second)
        #expect(await signer.tokensMade == 2)
        // Many callers at the due time share one signing.
        clock.advance(by: 50 * 60)
        let tokens = try await withThrowingTaskGroup(of: ProviderTokenSigner.Token.self) { group in
            for _ in 0..<20 { group.addTask { try await signer.token() } }
            return try await group.reduce(into: Set()) { $0.insert($1) }
        }
        let tokensMade = await signer.tokensMade
        #expect(tokens.count == 1 && tokensMade == 3)
    }

    @Test("keys that cannot sign are refused with a sentence")
    func badKeys() async throws {
        #expect { try APNsSigningKey(pem: "not a key", keyID: testKeyID, teamID: testTeamID) } throws: {
            ($0 as? APNsClientError)?.code == .invalidSigningKey
        }
        #expect { try APNsSigningKey(p8File: "/nonexistent/AuthKey_ABC.p8", teamID: testTeamID) } throws: {
            ($0 as? APNsClientError)?.message.contains("cannot read") == true
        }
        #expect { try APNsSigningKey(p8File: "/tmp/key.pem", teamID: testTeamID) } throws: {
            ($0 as? APNsClientError)?.message.contains("AuthKey_<KEYID>.p8") == true
        }
    }
}
