import Foundation
import NotificationModel
import NotificationPush
import Synchronization
import Testing

@testable import NotificationPushGateway

/// `RequestAnswerer.answer(batch:connection:then:)`: every request answered once, every in-flight slot released.
@Suite("APNs endpoint: answering a batch")
struct BatchAnswerTests {
    static let token = String(repeating: "ab", count: 32)
    static let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)

    static func request(topic: String) -> APNsRequest {
        APNsRequest(path: "/3/device/\(token)", headers: [("apns-topic", topic)], body: body)
    }

    /// Collects the answers delivered for a batch, by index.
    final class Delivered: Sendable {
        let answers = Mutex<[Int: [Int]]>([:])
        func add(_ answered: [(index: Int, response: APNsResponse)]) {
            answers.withLock { for (index, response) in answered { $0[index, default: []].append(response.status) } }
        }
        var snapshot: [Int: [Int]] { answers.withLock { $0 } }
    }

    /// Returns once `condition` holds (answers alone come from tasks of their own); the tests' time limit bounds it.
    static func waitFor(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("a fault rule, left-out push and batched ones: each answered once, every slot released", .timeLimit(.minutes(1)))
    func mixedBatch() async throws {
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.faultRules = { [try! APNsFaultRule(id: "f", reason: "InternalServerError", topic: "com.example.fault")] }
        let answerer = RequestAnswerer(
            responder: { _ in .success(apnsID: UUID().uuidString.lowercased()) },
            batchResponder: { requests in
                requests.map { $0.headers.contains { $0.value == "com.example.alone" } ? nil : .success(apnsID: "x") }
            },
            verifier: nil, configuration: configuration)
        let delivered = Delivered()
        let requests = ["com.example.app", "com.example.fault", "com.example.alone", "com.example.app"].map(Self.request)
        await answerer.answer(batch: requests, connection: ConnectionState()) { delivered.add($0) }
        try await Self.waitFor { delivered.snapshot.count == 4 && answerer.inFlight == 0 }
        #expect(delivered.snapshot == [0: [200], 1: [500], 2: [200], 3: [200]])
        #expect(answerer.inFlight == 0)
    }

    @Test("a batch responder that answers fewer requests than it was given leaves none unanswered", .timeLimit(.minutes(1)))
    func shortBatchAnswer() async throws {
        let configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        let answerer = RequestAnswerer(
            responder: { _ in .success(apnsID: "y") }, batchResponder: { _ in [] }, verifier: nil,
            configuration: configuration)
        let delivered = Delivered()
        await answerer.answer(batch: [Self.request(topic: "com.example.app")], connection: ConnectionState()) {
            delivered.add($0)
        }
        try await Self.waitFor { !delivered.snapshot.isEmpty }
        #expect(answerer.inFlight == 0)
        #expect(delivered.snapshot.count == 1, "the request got no answer: its stream stays open until the client gives up")
    }

    @Test("the fault rules are asked once for a batch, each request still gets its rule", .timeLimit(.minutes(1)))
    func faultRulesOncePerBatch() async throws {
        let asked = Mutex(0)
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.faultRules = {
            asked.withLock { $0 += 1 }
            return [try! APNsFaultRule(id: "f", reason: "TooManyRequests", topic: "com.example.fault")]
        }
        let answerer = RequestAnswerer(
            responder: { _ in .success(apnsID: "y") }, batchResponder: { $0.map { _ in .success(apnsID: "x") } },
            verifier: nil, configuration: configuration)
        let delivered = Delivered()
        let (app, fault) = ("com.example.app", "com.example.fault")
        let topics = [app, fault, app, app, fault]
        await answerer.answer(batch: topics.map(Self.request), connection: ConnectionState()) { delivered.add($0) }
        try await Self.waitFor { delivered.snapshot.count == 5 && answerer.inFlight == 0 }
        #expect(delivered.snapshot == [0: [200], 1: [429], 2: [200], 3: [200], 4: [429]])
        #expect(asked.withLock { $0 } == 1, "one read of the rules (in the daemon, of the store) for the whole batch")
        // A request answered on its own still asks them itself.
        _ = await answerer.answer(Self.request(topic: "com.example.fault"), connection: ConnectionState())
        #expect(asked.withLock { $0 } == 2)
    }
}
