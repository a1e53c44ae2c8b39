import Foundation
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import PushTestSupport
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
        let (endpoint, port) = try await endpointAndPort(rules, clock: clock)
        return (endpoint, try await HTTP2TestClient.connect(port: port))
    }

    static func endpointAndPort(_ rules: Rules, clock: ManualNotificationClock) async throws -> (APNsEndpoint, Int) {
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.clock = clock
        configuration.faultRules = { rules.current.withLock { $0 } }
        let endpoint = APNsEndpoint(configuration: configuration) { _ in .success(apnsID: UUID().uuidString.lowercased()) }
        return (endpoint, try await endpoint.start())
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

    // 120 requests and three endpoints, one after the other: minutes when the whole suite shares two loaded cores.
    @Test("a fraction picks requests from its seed: the same seed, the same requests", .timeLimit(.minutes(4)))
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
        // The answerer alone, so that the only sleeper on the clock is the rule's (a connection's idle timeout
        // sleeps on it too).
        let clock = Self.clock()
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.clock = clock
        configuration.faultRules = { [try! APNsFaultRule(id: "slow", reason: "InternalServerError", delay: 2)] }
        let answerer = RequestAnswerer(
            responder: { _ in .success(apnsID: UUID().uuidString.lowercased()) }, verifier: nil, configuration: configuration)
        let request = APNsRequest(path: "/3/device/\(Self.token)", headers: [("apns-topic", "com.example.app")], body: Self.body)
        let answered = Task { await answerer.answer(request, connection: ConnectionState()) }
        for _ in 0..<1_000 where clock.sleeperCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(clock.sleeperCount == 1)  // else the answer could never come: stop here
        clock.advance(by: 1.5)
        #expect(clock.sleeperCount == 1)  // still held: its deadline is 2 s after it arrived
        clock.advance(by: 0.5)
        let response = await answered.value
        #expect(response.status == 500 && response.reason == .internalServerError)
    }

    @Test("close after N: each connection's Nth matching request is answered, then GOAWAY and close", .timeLimit(.minutes(1)))
    func closeAfter() async throws {
        let rules = Rules()
        rules.set([try APNsFaultRule(id: "flaky", action: .close, reason: "InternalServerError", count: 2, topic: "com.example.app")])
        let (endpoint, port) = try await Self.endpointAndPort(rules, clock: Self.clock())
        let client = try await HTTP2TestClient.connect(port: port)
        #expect(try await Self.send(client, topic: "com.example.other").status == 200)  // not matched, not counted
        #expect(try await Self.send(client).status == 200)
        #expect(client.goAwayData == nil)
        #expect(try await Self.send(client).status == 200)
        #expect(try await client.goAwayReceived() == #"{"reason":"InternalServerError"}"#)
        try await client.closed()
        // A new connection counts again.
        let next = try await HTTP2TestClient.connect(port: port)
        #expect(try await Self.send(next).status == 200)
        #expect(next.isActive && next.goAwayData == nil)
        await next.close()
        await endpoint.stop()
    }

    @Test("hold: the request stays unanswered while later ones are answered, until its connection closes", .timeLimit(.minutes(1)))
    func hold() async throws {
        let rules = Rules()
        rules.set([try APNsFaultRule(id: "stuck", action: .hold, topic: "com.example.stuck")])
        let (endpoint, port) = try await Self.endpointAndPort(rules, clock: Self.clock())
        let client = try await HTTP2TestClient.connect(port: port)
        let held = Task { try? await Self.send(client, topic: "com.example.stuck") }
        let answerer = endpoint.answerer
        for _ in 0..<2_000 where answerer.inFlight == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(answerer.inFlight == 1)
        // Later requests on the same connection are answered while the held one waits.
        #expect(try await Self.send(client).status == 200)
        #expect(try await Self.send(client).status == 200)
        #expect(answerer.inFlight == 1)
        await client.close()
        let answer = await held.value
        #expect(answer == nil || answer?.status != 200)
        // The connection's close ends the hold: nothing is in flight any more.
        for _ in 0..<2_000 where answerer.inFlight != 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(answerer.inFlight == 0)
        await endpoint.stop()
    }

    @Test("shutdown: 503 Shutdown and GOAWAY on open connections, new connections closed at once", .timeLimit(.minutes(1)))
    func shutdown() async throws {
        let rules = Rules()
        let (endpoint, port) = try await Self.endpointAndPort(rules, clock: Self.clock())
        let existing = try await HTTP2TestClient.connect(port: port)
        #expect(try await Self.send(existing).status == 200)
        rules.set([try APNsFaultRule(id: "down", action: .shutdown)])
        #expect(try await Self.send(existing) == (503, "Shutdown"))
        #expect(try await existing.goAwayReceived() == #"{"reason":"Shutdown"}"#)
        try await existing.closed()
        let refused = try await HTTP2TestClient.connect(port: port)
        try await refused.closed()
        let late = try? await Self.send(refused)
        #expect(late == nil)
        rules.set([])
        let again = try await HTTP2TestClient.connect(port: port)
        #expect(try await Self.send(again).status == 200)
        await again.close()
        await endpoint.stop()
    }

    @Test("rules stored before there were actions decode as answers")
    func storedBeforeActions() throws {
        let stored = #"[{"id":"busy","reason":"TooManyRequests","delay":0,"fraction":1,"seed":0}]"#
        let rules = try APNsFaultRule.decodeStored(stored)
        #expect(rules == [try APNsFaultRule(id: "busy", reason: "TooManyRequests")])
        #expect(try APNsFaultRule.decodeStored(nil).isEmpty && APNsFaultRule.decodeStored("").isEmpty)
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
            ({ try APNsFaultRule(id: "x", action: .close) }, "count"),
            ({ try APNsFaultRule(id: "x", action: .close, count: 0) }, "count"),
            ({ try APNsFaultRule(id: "x", reason: "Shutdown", count: 3) }, "only a rule that closes"),
            ({ try APNsFaultRule(id: "x", action: .hold, reason: "BadTopic") }, "holds"),
            ({ try APNsFaultRule(id: "x", action: .shutdown, reason: "BadTopic") }, "shutdown"),
        ] as [(() throws -> APNsFaultRule, String)] {
            #expect { try make() } throws: { ($0 as? APNsFaultRuleError)?.description.contains(message) == true }
        }
    }
}
