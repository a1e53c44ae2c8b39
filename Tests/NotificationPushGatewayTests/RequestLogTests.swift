import Foundation
import NotificationModel
import NotificationPush
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import PushTestSupport
import Synchronization
import Testing

@testable import NotificationPushGateway

/// The endpoint's request log: every request and its answer, secrets shortened, kept in a bounded ring.
@Suite("APNs request log")
struct RequestLogTests {
    static let token = String(repeating: "ab", count: 31) + "cdef"

    @Test("each request is logged with its connection, headers, payload, answer and latency; tokens shortened", .timeLimit(.minutes(1)))
    func logsRequests() async throws {
        let store = try SQLiteNotificationStore()
        let log = APNsRequestLog(keep: 100) { entries, keep in try await store.appendAPNsLog(entries, keep: keep) }
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        configuration.requestLog = log
        configuration.environment = .production
        configuration.faultRules = { [try! APNsFaultRule(id: "busy", reason: "TooManyRequests", topic: "com.example.busy")] }
        let endpoint = APNsEndpoint(configuration: configuration) { _ in .success(apnsID: "5c8c7121-e20d-48fe-b2ea-281831b115d3") }
        let client = try await HTTP2TestClient.connect(port: try await endpoint.start())
        let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)
        let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ0ZWFtIn0.signature-ends-HERE1234"
        _ = try await client.send(
            path: "/3/device/\(Self.token)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")],
            body: body)
        _ = try await client.send(path: "/3/device/\(Self.token)", headers: [("apns-topic", "com.example.busy")], body: body)
        _ = try await client.send(path: "/2/nowhere", headers: [], body: body)
        await client.close()
        await endpoint.stop()  // writes what is left

        let entries = try await store.apnsLog(afterID: 0, limit: 10)
        #expect(entries.map(\.status) == [200, 429, 200])  // the test responder answers every path 200
        #expect(entries[1].reason == "TooManyRequests" && entries[0].reason == nil)
        #expect(entries.allSatisfy { $0.environment == .production && $0.method == "POST" })
        #expect(Set(entries.map(\.connection)).count == 1)
        #expect(entries[0].path == "/3/device/…" + Self.token.suffix(8))
        #expect(!entries.contains { $0.path.contains(Self.token) || $0.headers.joined().joined().contains(jwt) })
        #expect(entries[0].headers.contains(["authorization", "bearer …" + jwt.suffix(8)]))
        #expect(entries[0].topic == "com.example.app" && entries[0].payload == #"{"aps":{"alert":"Hi"}}"#)
        #expect(entries[0].apnsID == "5c8c7121-e20d-48fe-b2ea-281831b115d3")
        #expect(entries.allSatisfy { $0.latency >= 0 && $0.latency < 60 })
        #expect(entries.map(\.id) == entries.map(\.id).sorted())
    }

    @Test("while the endpoint runs, entries are written shortly after they arrive, batch after batch", .timeLimit(.minutes(1)))
    func writesWhileRunning() async throws {
        let store = try SQLiteNotificationStore()
        let writes = Mutex(0)
        let log = APNsRequestLog(keep: 100) { entries, keep in
            writes.withLock { $0 += 1 }
            try await store.appendAPNsLog(entries, keep: keep)
        }
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.requestLog = log
        let endpoint = APNsEndpoint(configuration: configuration) { _ in .success(apnsID: "5c8c7121-e20d-48fe-b2ea-281831b115d3") }
        let client = try await HTTP2TestClient.connect(port: try await endpoint.start())
        defer { Task { await endpoint.stop() } }
        let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)
        func waitForEntries(_ count: Int) async throws {
            while try await store.apnsLog(afterID: 0, limit: 10).count < count { try await Task.sleep(for: .milliseconds(20)) }
        }
        _ = try await client.send(path: "/3/device/\(Self.token)", headers: [("apns-topic", "com.example.app")], body: body)
        try await waitForEntries(1)  // written by the flusher: the endpoint still runs
        _ = try await client.send(path: "/3/device/\(Self.token)", headers: [("apns-topic", "com.example.app")], body: body)
        try await waitForEntries(2)  // a second batch after a quiet spell
        #expect(writes.withLock { $0 } == 2)
        await client.close()
    }

    @Test("the ring keeps the newest entries; a reader continues after the last id it saw")
    func ring() async throws {
        let store = try SQLiteNotificationStore()
        func entry(_ status: Int) -> APNsLogEntry {
            APNsLogEntry(
                receivedAt: Date(), connection: "c1", environment: .development, method: "POST", path: "/3/device/x",
                headers: [], payload: Data(), status: status, reason: nil, apnsID: nil, latency: 0)
        }
        try await store.appendAPNsLog((1...5).map { entry(200 + $0) }, keep: 3)
        let kept = try await store.apnsLog(afterID: 0, limit: 10)
        #expect(kept.map(\.status) == [203, 204, 205])
        try await store.appendAPNsLog([entry(206)], keep: 3)
        #expect(try await store.apnsLog(afterID: kept.last!.id, limit: 10).map(\.status) == [206])
        #expect(try await store.apnsLog(afterID: 0, limit: 2).map(\.status) == [205, 206])
    }
}
