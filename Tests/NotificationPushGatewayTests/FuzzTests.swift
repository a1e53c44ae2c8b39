import Foundation
import NIOCore
import NIOHTTP1
import NotificationModel
import NotificationPushGateway
import OpenUserNotificationsTesting
import PushTestSupport
import Synchronization
import Testing

/// Random and mutated provider requests.
struct RequestMutator {
    var random: SeededGenerator
    let token: String

    static let payloads = [
        #"{"aps":{"alert":"Hi"}}"#, #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"default"}}"#,
        #"{"aps":{"content-available":1}}"#,
        #"{"aps":{"alert":"x","interruption-level":"critical"},"k":[1,2,{"a":null}]}"#,
        #"{"aps":{"alert":{"loc-key":"K","loc-args":["a",1]}}}"#, "{}", "[]", "null", "", #"{"aps":"no"}"#,
    ]
    static let headerValues: [String: [String]] = [
        "apns-push-type": ["alert", "background", "voip", "complication", "fax", "", "ALERT", "liveactivity"],
        "apns-priority": ["10", "5", "1", "0", "-1", "11", "x", ""],
        "apns-expiration": ["0", "1", "1999999999", "-5", "soon", ""],
        "apns-topic": [testAppID, testAppID + ".voip", testAppID + ".complication", "com.other", "", "a b"],
        "apns-collapse-id": ["c", String(repeating: "c", count: 64), String(repeating: "c", count: 65), ""],
        "apns-id": ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "nope", ""],
        "authorization": ["bearer x", "bearer", ""],
        "x-extra": ["1", "é"],
    ]

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    /// Flips, inserts, removes or truncates bytes, or makes random bytes.
    mutating func mutate(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            return Data(
                (0..<Int.random(in: 0..<300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 1: if !bytes.isEmpty { bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &random)...) }
        case 2:
            bytes.append(
                contentsOf: [UInt8](repeating: UInt8(ascii: " "), count: Int.random(in: 0..<6_000, using: &random)))
        case 3:
            for _ in 0..<3 where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 4: bytes.insert(contentsOf: Array(#"{"\"#.utf8), at: Int.random(in: 0...bytes.count, using: &random))
        default: break
        }
        return Data(bytes)
    }

    /// One request: method, path, headers, body.
    mutating func next() -> (method: HTTPMethod, path: String, headers: [(String, String)], body: Data) {
        let method: HTTPMethod = chance(95) ? .POST : pick([.GET, .PUT, .DELETE])
        var path = "/3/device/" + token
        if chance(15) {
            path = pick([
                "/3/device/", "/3/device/" + String(token.dropLast()), "/3/device/" + token.uppercased(),
                "/2/device/" + token,
                "/", "/3/device/" + String(repeating: "z", count: 64), "/3/device/\(token)/x", "/3/device/%41",
            ])
        }
        var headers: [(String, String)] = []
        for (name, values) in Self.headerValues where chance(30) {
            headers.append((name, pick(values)))
            if chance(5) { headers.append((name, pick(values))) }
        }
        var body = Data(pick(Self.payloads).utf8)
        if chance(50) { body = mutate(body) }
        return (method, path, headers, body)
    }
}

@Suite("APNs endpoint fuzz")
struct FuzzTests {
    @Test("10,000 random and mutated requests over HTTP/2: no crash, every answer a valid APNs answer")
    func fuzz() async throws {
        let fixture = try await EndpointFixture()
        let seed = UInt64.random(in: 0...UInt64.max)
        let total = 10_000, workers = 16
        let clients = [
            try await HTTP2TestClient.connect(port: fixture.port),
            try await HTTP2TestClient.connect(port: fixture.port),
        ]
        let reasonsSeen = Shared<[String: Int]>([:])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var mutator = RequestMutator(
                        random: SeededGenerator(seed: seed &+ UInt64(worker)), token: fixture.token.hex)
                    let client = clients[worker % clients.count]
                    for _ in 0..<(total / workers) {
                        let request = mutator.next()
                        let response = try await client.send(
                            method: request.method, path: request.path, headers: request.headers, body: request.body)
                        let id = response.headers["apns-id"]
                        #expect(id.count == 1 && isLowercaseUUID(id.first ?? ""), "seed \(seed): \(request)")
                        let label: String
                        if response.status == 200 {
                            #expect(response.body.isEmpty, "seed \(seed)")
                            label = "200"
                        } else {
                            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                            let reason = (object?["reason"] as? String).flatMap(APNsReason.init(reason:))
                            #expect(reason?.status == response.status, "seed \(seed): \(request) → \(response.status)")
                            label = reason?.reason ?? "invalid"
                        }
                        reasonsSeen.update { $0[label, default: 0] += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = reasonsSeen.current
        print("fuzz seed \(seed): \(seen.sorted { $0.key < $1.key })")
        #expect(seen.values.reduce(0, +) == total)
        #expect(seen["200", default: 0] > 0 && seen.count > 8)
        // Still serving after all that, and raw garbage on new connections crashes nothing.
        for garbage in [
            "GET / HTTP/1.1\r\n\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u{0}\u{0}\u{5}", "\u{16}\u{3}\u{1}xx",
            "\r\n\r\n",
        ] {
            try await HTTP2TestClient.sendRaw(Array(garbage.utf8), port: fixture.port)
        }
        var random = SeededGenerator(seed: seed)
        for _ in 0..<50 {
            try await HTTP2TestClient.sendRaw(
                (0..<200).map { _ in UInt8.random(in: 0...255, using: &random) }, port: fixture.port)
        }
        let after = try await clients[0].send(
            path: "/3/device/\(fixture.token.hex)", headers: [], body: Data(#"{"aps":{"alert":"ok"}}"#.utf8))
        #expect(after.status == 200)
        for client in clients { await client.close() }
        await fixture.endpoint.stop()
    }
}
