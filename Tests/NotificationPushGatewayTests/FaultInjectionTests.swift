import Foundation
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import Synchronization
import Testing

@testable import NotificationPushGateway

/// Fault rules: the endpoint fails on purpose, for the requests they match, deterministically.
@Suite("APNs endpoint fault rules")
struct FaultInjectionTests {
    static let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)
    static let token = String(repeating: "ab", count: 32)
    static let otherToken = String(repeating: "cd", count: 32)

    /// Rules a test changes while the endpoint runs.
    final class Rules: Sendable {
        let current = Mutex<[APNsFaultRule]>([])
        func set(_ rules: [APNsFaultRule]) { current.withLock { $0 = rules } }
    }

    /// An endpoint on an ephemeral port that accepts every request its rules let through.
    static func endpoint(_ rules: Rules, clock: ManualNotificationClock) async throws -> (APNsEndpoint, HTTP2TestClient) {
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.clock = clock
        configuration.faultRules = { rules.current.withLock { $0 } }
        let endpoint = APNsEndpoint(configuration: configuration) { _ in .success(apnsID: UUID().uuidString.lowercased()) }
        let port = try await endpoint.start()
        return (endpoint, try await HTTP2TestClient.connect(port: port))
    }

    static func send(_ client: HTTP2TestClient, topic: String = "com.example.app", token: String = token) async throws
        -> (status: Int, reason: String?)
    {
        let response = try await client.send(path: "/3/device/\(token)", headers: [("apns-topic", topic)], body: body)
        let reason = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["reason"] as? String
        return (response.status, reason)
    }

    static func clock() -> ManualNotificationClock { ManualNotificationClock(now: Date(timeIntervalSince1970: 1_700_000_000)) }

    @Test("a rule answers its reason with its status, only for its topic and its token", .timeLimit(.minutes(1)))
    func matching() async throws {
        let rules = Rules()
        let (endpoint, client) = try await Self.endpoint(rules, clock: Self.clock())
        #expect(try await Self.send(client).status == 200)
        rules.set([
            try APNsFaultRule(id: "gone", reason: "Unregistered", token: Self.otherToken.uppercased()),
            try APNsFaultRule(id: "busy", reason: "TooManyRequests", topic: "com.example.app"),
        ])
        #expect(try await Self.send(client) == (429, "TooManyRequests"))
        #expect(try await Self.send(client, topic: "com.example.other").status == 200)
        #expect(try await Self.send(client, topic: "com.example.other", token: Self.otherToken) == (410, "Unregistered"))
        rules.set([])
        #expect(try await Self.send(client).status == 200)
        await client.close()
        await endpoint.stop()
    }

    @Test("a fraction picks requests from its seed: the same seed, the same requests", .timeLimit(.minutes(1)))
    func seededFraction() async throws {
        func pattern(seed: UInt64) async throws -> [Int] {
            let rules = Rules()
            rules.set([try APNsFaultRule(id: "flaky", reason: "ServiceUnavailable", fraction: 0.3, seed: seed)])
            let (endpoint, client) = try await Self.endpoint(rules, clock: Self.clock())
            var statuses: [Int] = []
            for _ in 0..<40 { statuses.append(try await Self.send(client).status) }
            await client.close()
            await endpoint.stop()
            return statuses
        }
        let first = try await pattern(seed: 7)
        #expect(try await pattern(seed: 7) == first)
        #expect(try await pattern(seed: 8) != first)
        let refused = first.filter { $0 == 503 }.count
        #expect(Set(first) == [200, 503] && (4...20).contains(refused), "\(first)")
    }

    @Test("a delay holds the answer until the endpoint's clock has moved that far", .timeLimit(.minutes(1)))
    func delay() async throws {
        let rules = Rules()
        let clock = Self.clock()
        rules.set([try APNsFaultRule(id: "slow", reason: "InternalServerError", delay: 2)])
        let (endpoint, client) = try await Self.endpoint(rules, clock: clock)
        let before = clock.sleeperCount
        let answered = Task { try await Self.send(client) }
        // The request reaches the rule and waits on the endpoint's clock (bounded wait for it to get there).
        for _ in 0..<1_000 where clock.sleeperCount == before { try await Task.sleep(for: .milliseconds(5)) }
        #expect(clock.sleeperCount == before + 1)
        clock.advance(by: 1.5)
        #expect(clock.sleeperCount == before + 1)  // still held: its deadline is 2 s after it arrived
        clock.advance(by: 0.5)
        #expect(try await answered.value == (500, "InternalServerError"))
        await client.close()
        await endpoint.stop()
    }

    @Test("rules that cannot work are refused with a sentence")
    func invalid() {
        for (make, message) in [
            ({ try APNsFaultRule(id: "x", reason: "TooManyRequest") }, "unknown reason"),
            ({ try APNsFaultRule(id: "x") }, "a reason, a delay or both"),
            ({ try APNsFaultRule(id: "x", reason: "Shutdown", fraction: 0) }, "fraction"),
            ({ try APNsFaultRule(id: "x", delay: -1) }, "delay"),
            ({ try APNsFaultRule(id: "x y", reason: "Shutdown") }, "id"),
            ({ try APNsFaultRule(id: "x", reason: "Shutdown", token: "zz") }, "hex"),
        ] as [(() throws -> APNsFaultRule, String)] {
            #expect { try make() } throws: { ($0 as? APNsFaultRuleError)?.description.contains(message) == true }
        }
    }
}
