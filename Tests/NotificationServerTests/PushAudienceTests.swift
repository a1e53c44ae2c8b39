import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import Testing

/// The push service's audiences (issue 20): accounts, aliases, tags, device checks and tag expressions, through the
/// Swift API and the HTTP API, on a fresh PostgreSQL database each.
@Suite("Push service: audiences, device checks and tag expressions", .timeLimit(.minutes(5)))
struct PushAudienceTests {
    /// Runs `body` with the push service over a new database and `count` registered devices `d00`, `d01`, ….
    func withPush(
        devices count: Int = 3, _ body: @escaping @Sendable (PushService, DeviceScheduler) async throws -> Void
    ) async throws {
        try await withDeviceScheduler { store, devices in
            for index in 0..<count {
                try await devices.register(
                    registration(Self.id(index), zone: index % 2 == 0 ? "Europe/Paris" : "Asia/Tokyo"))
            }
            try await body(PushService(store: store), devices)
        }
    }

    static func id(_ index: Int) -> String { index < 10 ? "d0\(index)" : "d\(index)" }

    @Test("a device has one account, any aliases and tags; they are listed, unbound, and go with the device")
    func bindAndUnbind() async throws {
        try await withPush { push, devices in
            #expect(
                try await push.audience(deviceID: "d00")
                    == DeviceAudience(
                        deviceID: "d00", account: nil, aliases: [], tags: []))
            try await push.bindAccount("alice", deviceID: "d00")
            try await push.bindAccount("alice", deviceID: "d01")
            // A second account replaces the first: one account per device.
            try await push.bindAccount("bob", deviceID: "d02")
            let rebound = try await push.bindAccount("alice", deviceID: "d02")
            #expect(rebound.account == "alice")
            #expect(try await push.devices(account: "alice").map(\.id) == ["d00", "d01", "d02"])
            #expect(try await push.devices(account: "bob").isEmpty)
            #expect(try await push.devices(account: "alice", after: "d00", limit: 1).map(\.id) == ["d01"])

            let aliased = try await push.bindAliases(["phone", "alice@work", "phone"], deviceID: "d00")
            #expect(aliased.aliases == ["alice@work", "phone"])
            try await push.bindAliases(["phone"], deviceID: "d01")
            #expect(try await push.devices(alias: "phone").map(\.id) == ["d00", "d01"])
            let tagged = try await push.bindTags(["news", "sports"], deviceID: "d00")
            #expect(
                tagged
                    == DeviceAudience(
                        deviceID: "d00", account: "alice", aliases: ["alice@work", "phone"], tags: ["news", "sports"]))

            #expect(try await push.unbindAliases(["phone", "never-bound"], deviceID: "d00").aliases == ["alice@work"])
            #expect(try await push.unbindTags(nil, deviceID: "d00").tags.isEmpty)
            #expect(try await push.unbindAccount(deviceID: "d00").account == nil)
            #expect(try await push.devices(account: "alice").map(\.id) == ["d01", "d02"])

            // Removing a device removes its audience rows.
            try await push.bindTags(["news"], deviceID: "d01")
            try await devices.remove(deviceID: "d01")
            #expect(try await push.devices(alias: "phone").isEmpty)
            #expect(try await push.devices(account: "alice").map(\.id) == ["d02"])
            try await devices.register(registration("d01", zone: "UTC"))
            #expect(try await push.audience(deviceID: "d01").tags.isEmpty)
        }
    }

    @Test("limits and unknown devices are refused with a named error and change nothing")
    func limits() async throws {
        try await withPush { push, _ in
            try await push.bindAliases((0..<120).map { "a\($0)" }, deviceID: "d00")
            // 120 + 9 new = 129 > 128: refused as a whole.
            let tooMany = await #expect(throws: DeviceError.self) {
                try await push.bindAliases((120..<129).map { "a\($0)" }, deviceID: "d00")
            }
            #expect(tooMany?.code == .tooManyAliases)
            #expect(try await push.audience(deviceID: "d00").aliases.count == 120)
            try await push.bindAliases((120..<128).map { "a\($0)" }, deviceID: "d00")
            #expect(try await push.audience(deviceID: "d00").aliases.count == 128)

            let tags = await #expect(throws: DeviceError.self) {
                try await push.bindTags((0..<129).map { "t\($0)" }, deviceID: "d01")
            }
            #expect(tags?.code == .tooManyTags)
            #expect(try await push.audience(deviceID: "d01").tags.isEmpty)

            for bad in ["", String(repeating: "x", count: 129), "line\nbreak"] {
                let error = await #expect(throws: DeviceError.self) {
                    try await push.bindTags(["fine", bad], deviceID: "d01")
                }
                #expect(error?.code == .invalidName)
                let account = await #expect(throws: DeviceError.self) {
                    try await push.bindAccount(bad, deviceID: "d01")
                }
                #expect(account?.code == .invalidName)
            }
            #expect(
                try await push.audience(deviceID: "d01")
                    == DeviceAudience(
                        deviceID: "d01", account: nil, aliases: [], tags: []))
            // 128 characters is the longest name.
            #expect(try await push.bindTags([String(repeating: "é", count: 128)], deviceID: "d01").tags.count == 1)

            for call in [
                { try await push.bindAccount("a", deviceID: "ghost") },
                { try await push.bindTags(["a"], deviceID: "ghost") },
                { try await push.unbindAliases(nil, deviceID: "ghost") },
                { try await push.audience(deviceID: "ghost") },
            ] as [@Sendable () async throws -> DeviceAudience] {
                let error = await #expect(throws: DeviceError.self) { try await call() }
                #expect(error?.code == .unknownDevice)
            }
        }
    }

    @Test("device checks: up to 100 identifiers, known or not, active or not, with zone and topic")
    func checks() async throws {
        try await withPush { push, devices in
            try await devices.store.deactivateDevice(id: "d01", at: instant("2026-11-26T12:00:00Z"))
            let checks = try await push.checkDevices(ids: ["d02", "ghost", "d01", "d00", "d02"])
            #expect(checks.map(\.deviceID) == ["d02", "ghost", "d01", "d00"])
            #expect(checks.map(\.isKnown) == [true, false, true, true])
            #expect(checks.map(\.isActive) == [true, false, false, true])
            #expect(checks.map(\.timeZoneIdentifier) == ["Europe/Paris", nil, "Asia/Tokyo", "Europe/Paris"])
            #expect(checks[0].topic == "com.example.app")
            #expect(checks[0].lastRegisteredAt == instant("2026-11-26T12:00:00Z"))
            #expect(try await push.checkDevices(ids: (0..<100).map { "x\($0)" }).count == 100)
            let error = await #expect(throws: DeviceError.self) {
                try await push.checkDevices(ids: (0..<101).map { "x\($0)" })
            }
            #expect(error?.code == .tooManyDevices)
        }
    }

    @Test(
        "tag expressions that do not parse name where and why",
        arguments: [
            (#"[]"#, "", "an expression is an object"),
            (#"{}"#, "", "exactly one key"),
            (#"{"tag":"a","or":[]}"#, "", "exactly one key"),
            (#"{"tag":3}"#, "tag", "a tag is a string"),
            (#"{"tag":""}"#, "tag", "1 to 128 characters"),
            (#"{"and":{"tag":"a"}}"#, "and", "an array of expressions"),
            (#"{"or":[]}"#, "or", "1 to 100 expressions"),
            (#"{"and":[{"tag":"a"},{"not":{"xor":[]}}]}"#, "and[1].not", "unknown operator \"xor\""),
            (#"{"not":"a"}"#, "not", "an expression is an object"),
            (#"{"tag":"a""#, "", "not valid JSON"),
        ])
    func parseErrors(text: String, path: String, reason: String) throws {
        let error = #expect(throws: TagExpressionError.self) { try TagExpression(jsonText: Data(text.utf8)) }
        #expect(error?.path == path, "\(text)")
        #expect(error?.reason.contains(reason) == true, "\(text): \(error?.reason ?? "")")
    }

    @Test("tag expressions refuse more than 16 levels, 100 operands of one or, and 100 tags")
    func expressionLimits() throws {
        var deep: Any = ["tag": "a"]
        for _ in 0..<15 { deep = ["not": deep] }
        #expect(try TagExpression(json: deep) != .tag("a"))
        deep = ["not": deep]
        let error = #expect(throws: TagExpressionError.self) { try TagExpression(json: deep) }
        #expect(error?.reason.contains("deeper than 16") == true)
        let operands = #expect(throws: TagExpressionError.self) {
            try TagExpression(json: ["or": (0..<101).map { ["tag": "t\($0)"] }])
        }
        #expect(operands?.reason.contains("1 to 100 expressions") == true)
        let many: [String: Any] = [
            "or": [["or": (0..<60).map { ["tag": "a\($0)"] }], ["or": (0..<41).map { ["tag": "b\($0)"] }]]
        ]
        let tooMany = #expect(throws: TagExpressionError.self) { try TagExpression(json: many) }
        #expect(tooMany?.reason.contains("at most 100 tags") == true)
        #expect(tooMany?.path == "or[1].or[40].tag")
    }

    @Test("the store's SQL for a tag expression picks exactly the devices the expression matches, page by page")
    func expressionsInSQL() async throws {
        try await withPush(devices: 40) { push, devices in
            // Device i has tag "m2" when i % 2 == 0, "m3" when i % 3 == 0, "m5" when i % 5 == 0, and one tag that
            // looks like SQL.
            var tagsByDevice: [String: Set<String>] = [:]
            for index in 0..<40 {
                var tags: Set<String> = []
                for modulus in [2, 3, 5] where index % modulus == 0 { tags.insert("m\(modulus)") }
                if index == 7 { tags.insert("x'); DELETE FROM device; --") }
                tagsByDevice[Self.id(index)] = tags
                if !tags.isEmpty { try await push.bindTags(Array(tags), deviceID: Self.id(index)) }
            }
            // An inactive device never matches.
            try await devices.store.deactivateDevice(id: "d30", at: instant("2026-11-26T12:00:00Z"))
            tagsByDevice["d30"] = nil
            let expressions: [TagExpression] = [
                .tag("m2"),
                .and([.tag("m2"), .tag("m3")]),
                .or([.tag("m3"), .tag("m5")]),
                .not(.tag("m2")),
                .and([.or([.tag("m2"), .tag("m5")]), .not(.tag("m3"))]),
                .not(.or([.tag("m2"), .tag("m3"), .tag("m5")])),
                .tag("x'); DELETE FROM device; --"),
                .tag("nobody"),
            ]
            for expression in expressions {
                let expected = tagsByDevice.filter { expression.matches($0.value) }.keys.sorted()
                var found: [String] = []
                var after: String?
                while true {
                    let page = try await devices.store.deviceIDs(matching: expression, after: after, limit: 7)
                    found += page
                    guard page.count == 7 else { break }
                    after = page.last
                }
                #expect(found == expected, "\(expression)")
                #expect(try await push.deviceCount(matching: expression) == expected.count, "\(expression)")
            }
            #expect(try await devices.devices().count == 40)
        }
    }
}
