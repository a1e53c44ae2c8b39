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

/// The push service's routes in the worker's HTTP API, in-process (`HummingbirdTesting` `.router`), on a fresh
/// database each.
@Suite("Push service over HTTP: audiences, checks, tag expressions", .timeLimit(.minutes(5)))
struct PushAPITests {
    typealias API = ServerAPITests

    /// Runs `body` with a client of the API over a new database with devices `d1` and `d2` registered.
    func withAPI(_ body: @escaping @Sendable (any TestClientProtocol, PushService) async throws -> Void) async throws {
        try await withDeviceScheduler { store, devices in
            let api = ServerAPI(devices: devices, token: API.token)
            let application = Application(router: api.router())
            try await application.test(.router) { client in
                #expect(try await API.send(client, .put, "/v1/devices/d1", API.device).0 == .ok)
                #expect(try await API.send(client, .put, "/v1/devices/d2", API.device).0 == .ok)
                try await body(client, PushService(store: store))
            }
        }
    }

    @Test("bind and unbind an account, aliases and tags; list devices by account and alias")
    func audiences() async throws {
        try await withAPI { client, push in
            let (bound, audience) = try await API.send(client, .put, "/v1/devices/d1/account", #"{"account":"alice"}"#)
            #expect(bound == .ok)
            #expect(audience["account"] as? String == "alice")
            _ = try await API.send(client, .put, "/v1/devices/d2/account", #"{"account":"alice"}"#)
            let (_, aliases) = try await API.send(client, .post, "/v1/devices/d1/aliases", #"{"aliases":["a b","x"]}"#)
            #expect(aliases["aliases"] as? [String] == ["a b", "x"])
            let (_, tags) = try await API.send(client, .post, "/v1/devices/d1/tags", #"{"tags":["news","sport"]}"#)
            #expect(tags["tags"] as? [String] == ["news", "sport"])

            let (listed, byAccount) = try await API.send(client, .get, "/v1/accounts/alice/devices")
            #expect(listed == .ok)
            #expect((byAccount["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d1", "d2"])
            #expect(byAccount["next"] == nil)
            let (_, byAlias) = try await API.send(client, .get, "/v1/aliases/a%20b/devices")
            #expect((byAlias["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d1"])
            let (_, after) = try await API.send(client, .get, "/v1/accounts/alice/devices?after=d1")
            #expect((after["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d2"])

            #expect(
                try await API.send(client, .delete, "/v1/devices/d1/aliases/a%20b").1["aliases"] as? [String] == ["x"])
            #expect(try await API.send(client, .delete, "/v1/devices/d1/tags/news").1["tags"] as? [String] == ["sport"])
            let (unbound, none) = try await API.send(client, .delete, "/v1/devices/d1/account")
            #expect(unbound == .ok)
            #expect(none["account"] is NSNull)
            let (_, shown) = try await API.send(client, .get, "/v1/devices/d1/audience")
            #expect(shown["device"] as? String == "d1")
            #expect(shown["aliases"] as? [String] == ["x"])
            #expect(try await push.audience(deviceID: "d1").tags == ["sport"])
        }
    }

    @Test("device checks and audience counts over HTTP")
    func checksAndCounts() async throws {
        try await withAPI { client, push in
            let (status, answer) = try await API.send(
                client, .post, "/v1/device-checks", #"{"devices":["d2","ghost"]}"#)
            #expect(status == .ok)
            let checks = try #require(answer["devices"] as? [[String: Any]])
            #expect(checks.map { $0["id"] as? String } == ["d2", "ghost"])
            #expect(checks.map { $0["known"] as? Bool } == [true, false])
            #expect(checks[0]["timeZone"] as? String == "Europe/Paris")
            #expect(checks[0]["lastRegisteredAt"] as? String == "2026-11-26T12:00:00Z")

            try await push.bindTags(["news"], deviceID: "d1")
            try await push.bindTags(["news", "muted"], deviceID: "d2")
            let expression = #"{"tag":{"and":[{"tag":"news"},{"not":{"tag":"muted"}}]}}"#
            let (counted, count) = try await API.send(client, .post, "/v1/audience-counts", expression)
            #expect(counted == .ok)
            #expect(count["devices"] as? Int == 1)
        }
    }

    @Test(
        "bad audience input gets a 4xx JSON reason and changes nothing",
        arguments: [
            ("PUT", "/v1/devices/d1/account", #"{"account":""}"#, 400, "InvalidName"),
            ("PUT", "/v1/devices/d1/account", #"{"account":7}"#, 400, "BadRequest"),
            ("PUT", "/v1/devices/d1/account", #"{"account":"a","extra":1}"#, 400, "BadRequest"),
            ("PUT", "/v1/devices/ghost/account", #"{"account":"a"}"#, 404, "UnknownDevice"),
            ("POST", "/v1/devices/d1/aliases", #"{"aliases":[]}"#, 400, "BadRequest"),
            (
                "POST", "/v1/devices/d1/aliases", #"{"aliases":["ok","\#(String(repeating: "x", count: 129))"]}"#, 400,
                "InvalidName"
            ),
            (
                "POST", "/v1/devices/d1/tags", #"{"tags":[\#((0..<129).map { "\"t\($0)\"" }.joined(separator: ","))]}"#,
                400, "TooManyTags"
            ),
            (
                "POST", "/v1/devices/d1/aliases",
                #"{"aliases":[\#((0..<129).map { "\"a\($0)\"" }.joined(separator: ","))]}"#, 400, "TooManyAliases"
            ),
            ("DELETE", "/v1/devices/ghost/tags/news", "", 404, "UnknownDevice"),
            ("GET", "/v1/devices/ghost/audience", "", 404, "UnknownDevice"),
            (
                "POST", "/v1/device-checks",
                #"{"devices":[\#((0..<101).map { "\"x\($0)\"" }.joined(separator: ","))]}"#,
                400, "TooManyDevices"
            ),
            ("POST", "/v1/device-checks", #"{"devices":"d1"}"#, 400, "BadRequest"),
            ("POST", "/v1/audience-counts", #"{"tag":{"and":[{"tag":"a"},{"nand":[]}]}}"#, 400, "InvalidTagExpression"),
            ("POST", "/v1/audience-counts", #"{}"#, 400, "BadRequest"),
        ])
    func badInput(method: String, path: String, body: String, status: Int, reason: String) async throws {
        try await withAPI { client, push in
            try await push.bindTags(["kept"], deviceID: "d1")
            let (answered, answer) = try await API.send(
                client, HTTPRequest.Method(method)!, path, body.isEmpty ? nil : body)
            #expect(answered.code == status, "\(method) \(path): \(answer)")
            #expect(answer["reason"] as? String == reason, "\(method) \(path): \(answer)")
            #expect((answer["detail"] as? String)?.isEmpty == false)
            #expect(
                try await push.audience(deviceID: "d1")
                    == DeviceAudience(
                        deviceID: "d1", account: nil, aliases: [], tags: ["kept"]))
        }
    }

    @Test("an unparsable tag expression names where it fails")
    func expressionError() async throws {
        try await withAPI { client, _ in
            let (_, answer) = try await API.send(
                client, .post, "/v1/audience-counts", #"{"tag":{"and":[{"tag":"a"},{"not":{"tag":5}}]}}"#)
            #expect(answer["detail"] as? String == "at tag.and[1].not.tag: a tag is a string")
        }
    }
}
