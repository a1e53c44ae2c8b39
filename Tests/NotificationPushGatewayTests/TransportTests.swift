import Foundation
import NIOCore
import NIOPosix
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import PushTestSupport
import Synchronization
import Testing

@testable import NotificationPushGateway

/// The answers only the transport gives: idle timeout, shutdown, overload, per-token rate.
@Suite("APNs endpoint transport answers")
struct TransportTests {
    static let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)
    static let path = "/3/device/" + String(repeating: "ab", count: 32)

    /// The header that makes the test responder wait at its gate.
    static let waits = ("x-test-gate", "wait")

    /// An endpoint on an ephemeral port, on a manual clock that only the test moves. Its responder reports each
    /// request to `started`; requests carrying ``waits`` then wait for `gate` to open; every request is accepted.
    static func endpoint(
        clock: ManualNotificationClock, gate: Gate? = nil, started: AsyncStream<Void>.Continuation? = nil,
        adjust: (inout APNsEndpointConfiguration) -> Void = { _ in }
    ) async throws -> (APNsEndpoint, Int) {
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.clock = clock
        adjust(&configuration)
        let endpoint = APNsEndpoint(configuration: configuration) { request in
            started?.yield()
            if let gate, request.headers.contains(where: { $0 == waits }) { await gate.wait() }
            return .success(apnsID: UUID().uuidString.lowercased())
        }
        return (endpoint, try await endpoint.start())
    }

    /// A whole second, so the per-token rate's windows start with the test.
    static func manualClock() -> ManualNotificationClock {
        ManualNotificationClock(now: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static func reason(_ response: HTTP2TestClient.Response) -> String? {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["reason"] as? String
    }

    @Test(
        "an HTTP/2 connection that sends nothing for idleTimeout gets GOAWAY {\"reason\":\"IdleTimeout\"} and is closed",
        .timeLimit(.minutes(1)))
    func idleTimeout() async throws {
        let clock = Self.manualClock()
        let (endpoint, port) = try await Self.endpoint(clock: clock) { $0.idleTimeout = 60 }
        let client = try await HTTP2TestClient.connect(port: port)
        // An answer means the endpoint read everything the client sent before that request (its SETTINGS ack
        // too), so nothing the client sent is read after the clock moves.
        #expect(try await client.send(path: Self.path, headers: [], body: Self.body).status == 200)
        clock.advance(by: 59)
        #expect(try await client.send(path: Self.path, headers: [], body: Self.body).status == 200)
        // 118 s after the first request, 59 s after the last: a read restarts the timeout.
        clock.advance(by: 59)
        #expect(try await client.send(path: Self.path, headers: [], body: Self.body).status == 200)
        #expect(client.goAwayData == nil)
        clock.advance(by: 60)
        #expect(try await client.goAwayReceived() == #"{"reason":"IdleTimeout"}"#)
        try await client.closed()
        await endpoint.stop()
    }

    @Test("a connection that sends nothing at all for idleTimeout is closed (it has no protocol to say GOAWAY in)", .timeLimit(.minutes(1)))
    func idleBeforeAnyByte() async throws {
        let clock = Self.manualClock()
        let (endpoint, port) = try await Self.endpoint(clock: clock) { $0.idleTimeout = 60 }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        // The endpoint watches the connection once it accepted it: its watch then sleeps on the clock.
        for _ in 0..<2_000 where clock.sleeperCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(clock.sleeperCount == 1)
        clock.advance(by: 59)
        #expect(channel.isActive)
        clock.advance(by: 1)
        try await channel.closeFuture.get()
        await endpoint.stop()
    }

    @Test("one watch serves every connection: each is ended at its own last read plus idleTimeout", .timeLimit(.minutes(1)))
    func idleSeveral() async throws {
        let clock = Self.manualClock()
        let (endpoint, port) = try await Self.endpoint(clock: clock) { $0.idleTimeout = 60 }
        // Two requests each: the second's answer means the endpoint read everything the client sent before it
        // (the SETTINGS ack, which may follow the first request), so no read lands after the clock moves.
        let first = try await HTTP2TestClient.connect(port: port)
        for _ in 0..<2 { #expect(try await first.send(path: Self.path, headers: [], body: Self.body).status == 200) }
        clock.advance(by: 30)
        let second = try await HTTP2TestClient.connect(port: port)
        for _ in 0..<2 { #expect(try await second.send(path: Self.path, headers: [], body: Self.body).status == 200) }
        clock.advance(by: 30)
        #expect(try await first.goAwayReceived() == #"{"reason":"IdleTimeout"}"#)
        try await first.closed()
        #expect(second.isActive && second.goAwayData == nil)
        clock.advance(by: 30)
        #expect(try await second.goAwayReceived() == #"{"reason":"IdleTimeout"}"#)
        try await second.closed()
        await endpoint.stop()
    }

    @Test(
        "stopping: the request in flight finishes, open connections get GOAWAY Shutdown, new requests 503 Shutdown",
        .timeLimit(.minutes(1)))
    func shutdown() async throws {
        let clock = Self.manualClock()
        let gate = Gate()
        let (started, starts) = AsyncStream<Void>.makeStream()
        let (endpoint, port) = try await Self.endpoint(clock: clock, gate: gate, started: starts)
        var arrivals = started.makeAsyncIterator()
        // An HTTP/1.1 connection the endpoint serves (a connection it had not accepted yet when it stops is
        // dropped with its listening socket).
        let http1 = try await HTTP1TestClient.connect(port: port)
        #expect(try await http1.send(path: Self.path, headers: [], body: Self.body).status == 200)
        await arrivals.next()
        let client = try await HTTP2TestClient.connect(port: port)
        async let inFlight = client.send(path: Self.path, headers: [Self.waits], body: Self.body)
        await arrivals.next()
        // The grace is on the manual clock: stop waits for the request however long the test takes.
        async let stopped: Void = endpoint.stop(grace: 10)
        defer { gate.open() }  // after the `async let`s: on a failure the request ends before they are awaited
        // The GOAWAY comes after the endpoint started draining and closed its listening socket. (That a new
        // connection is refused is not checked: another endpoint of the test process may bind the port by then.)
        #expect(try await client.goAwayReceived() == #"{"reason":"Shutdown"}"#)
        let late = try await http1.send(path: Self.path, headers: [], body: Self.body)
        #expect(late.status == 503 && Self.reason(late) == "Shutdown", "\(late.status)")
        gate.open()
        #expect(try await inFlight.status == 200)
        await stopped
        try await client.closed()
        await http1.close()
    }

    @Test(
        "stopping: a request still in flight after the grace has its connection closed", .timeLimit(.minutes(1)))
    func shutdownGrace() async throws {
        let clock = Self.manualClock()
        let gate = Gate()
        let (started, starts) = AsyncStream<Void>.makeStream()
        let (endpoint, port) = try await Self.endpoint(clock: clock, gate: gate, started: starts)
        let client = try await HTTP2TestClient.connect(port: port)
        async let inFlight = try? client.send(path: Self.path, headers: [Self.waits], body: Self.body)
        var arrivals = started.makeAsyncIterator()
        await arrivals.next()
        async let stopped: Void = endpoint.stop(grace: 10)
        defer { gate.open() }  // after the `async let`s: on a failure the request ends before they are awaited
        // stop read the clock for its deadline before it said GOAWAY.
        #expect(try await client.goAwayReceived() == #"{"reason":"Shutdown"}"#)
        clock.advance(by: 10)
        await stopped
        try await client.closed()
        #expect(await inFlight?.status != 200)
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
            connection: ConnectionState())
        #expect(response.status == 503 && response.reason == .shutdown && response.apnsID == id)
    }

    @Test("more requests at once than allowed: 503 ServiceUnavailable", .timeLimit(.minutes(1)))
    func overload() async throws {
        let gate = Gate()
        let (endpoint, port) = try await Self.endpoint(clock: Self.manualClock(), gate: gate) {
            $0.maximumConcurrentRequests = 2
        }
        let client = try await HTTP2TestClient.connect(port: port)
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let response = try await client.send(path: Self.path, headers: [Self.waits], body: Self.body)
                    return (response.status, Self.reason(response))
                }
            }
            // Two are admitted and wait at the gate, so the first two answers are the two refused.
            var statuses: [(Int, String?)] = []
            do {
                for try await status in group {
                    statuses.append(status)
                    if statuses.count == 2 { gate.open() }
                }
            } catch {
                gate.open()  // the group waits for the two at the gate before it throws
                throw error
            }
            return statuses
        }
        #expect(statuses.prefix(2).allSatisfy { $0.0 == 503 && $0.1 == "ServiceUnavailable" })
        #expect(statuses.dropFirst(2).allSatisfy { $0.0 == 200 })
        await client.close()
        await endpoint.stop()
    }

    @Test(
        "a request the batch responder leaves out is answered on its own: the others of the read do not wait for it",
        .timeLimit(.minutes(1)))
    func leftOutOfBatch() async throws {
        let gate = Gate()
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.clock = Self.manualClock()
        let endpoint = APNsEndpoint(configuration: configuration) { request in
            if request.headers.contains(where: { $0 == Self.waits }) { await gate.wait() }
            return .success(apnsID: UUID().uuidString.lowercased())
        } batchResponder: { requests in
            requests.map { request in
                request.headers.contains(where: { $0 == Self.waits }) ? nil : .success(apnsID: UUID().uuidString.lowercased())
            }
        }
        let port = try await endpoint.start()
        let client = try await HTTP2TestClient.connect(port: port)
        let waiting = Task { try await client.send(path: Self.path, headers: [Self.waits], body: Self.body) }
        let others = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 { group.addTask { try await client.send(path: Self.path, headers: [], body: Self.body).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(others == [200, 200, 200])
        gate.open()
        #expect(try await waiting.value.status == 200)
        await client.close()
        await endpoint.stop()
    }

    @Test("more requests to one token within a second than allowed: 429 TooManyRequests", .timeLimit(.minutes(1)))
    func rate() async throws {
        let clock = Self.manualClock()
        let (endpoint, port) = try await Self.endpoint(clock: clock) { $0.maximumRequestsPerTokenPerSecond = 3 }
        let client = try await HTTP2TestClient.connect(port: port)
        func send(_ path: String = Self.path) async throws -> (Int, String?) {
            let response = try await client.send(path: path, headers: [], body: Self.body)
            return (response.status, Self.reason(response))
        }
        var answers: [(Int, String?)] = []
        for _ in 0..<5 { answers.append(try await send()) }
        #expect(answers.map(\.0) == [200, 200, 200, 429, 429])
        #expect(answers.dropFirst(3).allSatisfy { $0.1 == "TooManyRequests" })
        // Another token has its own count.
        #expect(try await send("/3/device/" + String(repeating: "cd", count: 32)).0 == 200)
        clock.advance(by: 0.999)
        #expect(try await send().0 == 429)
        clock.advance(by: 0.001)
        #expect(try await send().0 == 200)
        await client.close()
        await endpoint.stop()
    }
}

/// A gate the endpoint's responder waits at until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens the gate for every waiter, present and future.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
