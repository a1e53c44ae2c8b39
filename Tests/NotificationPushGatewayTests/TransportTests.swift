import Foundation
import NotificationModel
import NotificationPush
import Testing

@testable import NotificationPushGateway

/// The answers only the transport gives: idle timeout, shutdown, overload, per-token rate.
@Suite("APNs endpoint transport answers")
struct TransportTests {
    static let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)
    static let path = "/3/device/" + String(repeating: "ab", count: 32)

    /// An endpoint on an ephemeral port whose responder waits `delay` seconds, then accepts.
    static func endpoint(
        delay: Double = 0, started: Shared<Int> = Shared(0),
        adjust: (inout APNsEndpointConfiguration) -> Void = { _ in }
    ) async throws -> (APNsEndpoint, Int) {
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        adjust(&configuration)
        let endpoint = APNsEndpoint(configuration: configuration) { request in
            started.update { $0 += 1 }
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            return .success(apnsID: UUID().uuidString.lowercased())
        }
        return (endpoint, try await endpoint.start())
    }

    static func reason(_ response: HTTP2TestClient.Response) -> String? {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["reason"] as? String
    }

    @Test("an idle HTTP/2 connection gets GOAWAY {\"reason\":\"IdleTimeout\"} and is closed", .disabled("timing-dependent: failed when the whole suite shares two cores; to be made deterministic with an injected clock"))
    func idleTimeout() async throws {
        let (endpoint, port) = try await Self.endpoint { $0.idleTimeout = 2 }
        let client = try await HTTP2TestClient.connect(port: port)
        #expect(try await client.send(path: Self.path, headers: [], body: Self.body).status == 200)
        let deadline = Date().addingTimeInterval(15)
        while client.isActive && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!client.isActive)
        #expect(client.goAwayData == #"{"reason":"IdleTimeout"}"#)
        await endpoint.stop()
    }

    @Test("stopping: the request in flight finishes, open connections get GOAWAY Shutdown, new requests 503 Shutdown", .disabled("timing-dependent: failed when the whole suite shares two cores; to be made deterministic with an injected clock"))
    func shutdown() async throws {
        let started = Shared(0)
        let (endpoint, port) = try await Self.endpoint(delay: 1, started: started)
        let client = try await HTTP2TestClient.connect(port: port)
        async let inFlight = client.send(path: Self.path, headers: [], body: Self.body)
        let deadline = Date().addingTimeInterval(10)
        while started.current == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        async let stopped: Void = endpoint.stop(grace: 10)
        try await Task.sleep(for: .milliseconds(100))
        let late = try? await client.send(path: Self.path, headers: [], body: Self.body)
        #expect(try await inFlight.status == 200)
        // After the GOAWAY a new stream is refused or reset (status 0); one that slipped in first answers 503.
        if let late, late.status != 0 {
            #expect(late.status == 503 && Self.reason(late) == "Shutdown", "\(late.status)")
        }
        await stopped
        #expect(client.goAwayData == #"{"reason":"Shutdown"}"#)
    }

    @Test("a request reaching the answerer while the endpoint drains: 503 Shutdown with its apns-id")
    func drainingAnswer() async throws {
        let answerer = RequestAnswerer(
            responder: { _ in .success(apnsID: "x") }, verifier: nil,
            configuration: APNsEndpointConfiguration(address: .default))
        answerer.startDraining()
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = await answerer.answer(
            APNsRequest(path: Self.path, headers: [("apns-id", id)], body: Self.body),
            connection: ConnectionTokenState())
        #expect(response.status == 503 && response.reason == .shutdown && response.apnsID == id)
    }

    @Test("more requests at once than allowed: 503 ServiceUnavailable")
    func overload() async throws {
        let (endpoint, port) = try await Self.endpoint(delay: 0.5) { $0.maximumConcurrentRequests = 2 }
        let client = try await HTTP2TestClient.connect(port: port)
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let response = try await client.send(path: Self.path, headers: [], body: Self.body)
                    return (response.status, Self.reason(response))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0.0 == 200 }.count == 2)
        #expect(statuses.filter { $0.0 == 503 && $0.1 == "ServiceUnavailable" }.count == 2)
        await client.close()
        await endpoint.stop()
    }

    @Test("more requests to one token within a second than allowed: 429 TooManyRequests", .disabled("timing-dependent: failed when the whole suite shares two cores; to be made deterministic with an injected clock"))
    func rate() async throws {
        let (endpoint, port) = try await Self.endpoint { $0.maximumRequestsPerTokenPerSecond = 3 }
        let client = try await HTTP2TestClient.connect(port: port)
        var statuses: [Int] = []
        var reasons: [String?] = []
        for _ in 0..<10 {
            let response = try await client.send(path: Self.path, headers: [], body: Self.body)
            statuses.append(response.status)
            reasons.append(Self.reason(response))
        }
        #expect(statuses.prefix(3).allSatisfy { $0 == 200 })
        #expect(reasons.contains("TooManyRequests") && statuses.contains(429))
        await client.close()
        await endpoint.stop()
    }
}
