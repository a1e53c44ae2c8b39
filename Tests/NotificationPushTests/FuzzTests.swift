import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import Testing

/// Random and mutated bodies and header sets.
struct FuzzInput {
    var rng: SeededGenerator

    static let apsKeys = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content", "target-content-id",
        "interruption-level", "relevance-score", "filter-criteria", "title", "body", "loc-key", "loc-args",
        "title-loc-key", "title-loc-args", "subtitle-loc-key", "launch-image", "critical", "name", "volume", "aps",
        "Simulator Target Bundle", "summary-arg-count", "x",
    ]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func string() -> String {
        let pieces = ["", "a", "default", "passive", "time-sensitive", "critical", "é", "\u{10FF00}", "%@", "%d", "\"", "\\", "\u{0}", "😀"]
        return (0..<int(0...3)).map { _ in pieces[int(0...pieces.count - 1)] }.joined()
    }

    /// A random JSON value, biased to APNs keys.
    mutating func json(depth: Int) -> Any {
        switch int(0...(depth > 4 ? 6 : 9)) {
        case 0: return NSNull()
        case 1: return int(0...1) == 0
        case 2: return int(-5...5)
        case 3: return [0.0, 0.5, 1.0, 1.5, -0.1, 1e300, 3.0][int(0...6)]
        case 4, 5: return string()
        case 6: return Int.max - int(0...1)
        case 7: return (0..<int(0...4)).map { _ in json(depth: depth + 1) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<int(0...6) { object[Self.apsKeys[int(0...Self.apsKeys.count - 1)]] = json(depth: depth + 1) }
            return object
        }
    }

    /// A body: random bytes, random JSON, an aps-shaped object, or a mutated fixture.
    mutating func body() -> Data {
        switch int(0...5) {
        case 0: return Data((0..<int(0...64)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 1:
            let value = json(depth: 0)
            return (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data()
        case 2, 3:
            var top: [String: Any] = ["aps": json(depth: 1)]
            if int(0...1) == 0 { top["custom"] = json(depth: 1) }
            if int(0...3) == 0 { top["Simulator Target Bundle"] = json(depth: 3) }
            if int(0...9) == 0 { top["pad"] = String(repeating: "p", count: int(3900...5200)) }
            return (try? JSONSerialization.data(withJSONObject: top)) ?? Data()
        default:
            let fixtures = [Fixtures.chatMessage, Fixtures.appleSample, Fixtures.criticalAlert, Fixtures.backgroundRefresh, Fixtures.localized]
            var bytes = Array(fixtures[int(0...fixtures.count - 1)].utf8)
            for _ in 0..<int(1...4) {
                guard !bytes.isEmpty else { break }
                let at = int(0...bytes.count - 1)
                switch int(0...3) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(Array("{}[]\",:0-e".utf8)[int(0...9)], at: at)
                default: bytes = Array(bytes.prefix(at))
                }
            }
            return Data(bytes)
        }
    }

    /// A header set and path, valid or not.
    mutating func request(token: DeviceToken) -> APNsRequest {
        let paths = [
            "/3/device/\(token.hex)", "/3/device/\(token.hex.uppercased())", "/3/device/", "/3/device/abc", "/4/device/x",
            "/", "/3/device/\(DeviceToken.random(using: &rng).hex)",
        ]
        let names = ["apns-id", "apns-push-type", "apns-priority", "apns-expiration", "apns-topic", "apns-collapse-id", "APNS-TOPIC", "x-other"]
        let values = [
            "", "alert", "background", "voip", "widgets", "nope", "5", "10", "1", "7", "-1", "0", "1767603600",
            "com.example.fuzz", "com.example.fuzz.voip", "com.example.other", "has space",
            "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b",
            String(repeating: "c", count: 64), String(repeating: "c", count: 65),
        ]
        var headers: [(name: String, value: String)] = []
        for _ in 0..<int(0...5) { headers.append((names[int(0...names.count - 1)], values[int(0...values.count - 1)])) }
        let method = int(0...15) == 0 ? ["GET", "PUT", "post"][int(0...2)] : "POST"
        return APNsRequest(method: method, path: paths[int(0...paths.count - 1)], headers: headers, body: body())
    }
}

/// Checks that a reason is one of Apple's table with its status.
func expectTableReason(_ reason: APNsReason, _ context: @autoclosure () -> String) {
    let known = APNsReason(reason: reason.reason)
    #expect(known != nil && known?.status == reason.status, "\(reason) \(context())")
    #expect((try? JSONSerialization.jsonObject(with: reason.responseBody) as? [String: Any])?["reason"] as? String == reason.reason)
}

@Suite("Fuzzing the parser and the gateway")
struct FuzzTests {
    @Test("12,000 random and mutated payloads: each parses or answers PayloadEmpty / PayloadTooLarge", arguments: [1, 2, 3])
    func payloads(seed: UInt64) async {
        var input = FuzzInput(rng: SeededGenerator(seed: seed))
        var parsed = 0
        for index in 0..<4000 {
            // Seconds of CPU without a suspension would hold one of the two pool threads the whole suite shares
            // (other tests' clients then miss the daemon's 10 s hello deadline).
            if index % 100 == 0 { await Task.yield() }
            let body = input.body()
            let type = APNsPushType.allCases[input.int(0...APNsPushType.allCases.count - 1)]
            do throws(APNsReason) {
                let payload = try APNsPayload.parse(body, pushType: type)
                parsed += 1
                #expect(body.count <= type.payloadLimit)
                let content = payload.content(bundleDirectory: "/tmp/app")
                #expect(content.userInfo == payload.userInfo)
                _ = RemoteNotification(payload: payload, pushType: type)
            } catch {
                #expect([APNsReason.payloadEmpty, .payloadTooLarge].contains(error), "seed \(seed) case \(index)")
                expectTableReason(error, "seed \(seed) case \(index)")
            }
        }
        #expect(parsed > 400, "the generator should also produce valid payloads")
    }

    @Test("deeply nested and odd bodies do not trap")
    func oddBodies() {
        let bodies = [
            String(repeating: "[", count: 3000), String(repeating: "{\"aps\":", count: 1000),
            #"{"aps":{"alert":"\ud800"}}"#, #"{"aps":{"badge":1e999}}"#, "\u{FEFF}{\"aps\":{}}",
            #"{"aps":{"alert":"a"},"aps":{"badge":1}}"#,
        ]
        for body in bodies {
            do throws(APNsReason) { _ = try APNsPayload.parse(Data(body.utf8)) } catch { expectTableReason(error, body) }
        }
    }

    @Test("4,000 random header sets and paths: each validates or answers a reason of the table", arguments: [7, 8])
    func requests(seed: UInt64) async {
        var input = FuzzInput(rng: SeededGenerator(seed: seed))
        let token = DeviceToken.random(using: &input.rng)
        var accepted = 0
        for index in 0..<2000 {
            if index % 100 == 0 { await Task.yield() }  // as in payloads(seed:): other tests share the pool
            let request = input.request(token: token)
            do throws(APNsReason) {
                let push = try request.validate()
                accepted += 1
                #expect(push.token == token || request.path.count == 74)
                #expect([1, 5, 10].contains(push.priority))
                #expect(push.collapseIdentifier.map { $0.utf8.count <= 64 } ?? true)
            } catch {
                expectTableReason(error, "seed \(seed) case \(index)")
            }
        }
        #expect(accepted > 10)
    }

    @Test("600 requests through the gateway: every answer is 200 or a reason of the table, with an apns-id")
    func gateway() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.fuzz")
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.fuzz").token
        let gateway = PushGateway(scheduler: system.scheduler)
        var input = FuzzInput(rng: SeededGenerator(seed: 11))
        var statuses: [Int: Int] = [:]
        for index in 0..<600 {
            let response = await gateway.handle(input.request(token: token))
            statuses[response.status, default: 0] += 1
            #expect(APNsRequest.isUUIDForTests(response.apnsID), "case \(index)")
            if let reason = response.reason {
                expectTableReason(reason, "case \(index)")
                #expect(response.status == reason.status)
            } else {
                #expect(response.status == 200 && response.body.isEmpty)
            }
        }
        #expect(statuses[200, default: 0] > 0)
        #expect(statuses[400, default: 0] > 0)
    }
}

extension APNsRequest {
    /// Whether a text is an 8-4-4-4-12 UUID.
    static func isUUIDForTests(_ text: String) -> Bool { UUID(uuidString: text) != nil }
}
