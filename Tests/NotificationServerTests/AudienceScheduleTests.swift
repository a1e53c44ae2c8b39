import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import Testing

/// Scheduling one request for a group of devices -- an account, an alias, a tag expression, every device -- through
/// the Swift API (`DeviceScheduler.schedule(_:for:)`) and `POST /v1/requests` with a `target`, on a fresh PostgreSQL
/// database each (the clock stands at 2026-11-26T12:00:00Z).
@Suite("Server mode: scheduling for an audience", .timeLimit(.minutes(5)))
struct AudienceScheduleTests {
    /// Five devices: p (Paris) and t (Tokyo) read the news, n (New York) reads it but muted it, s (Paris) has sports
    /// and the account alice with p, and g (Paris, news) is inactive.
    static func register(_ store: PostgresNotificationStore, _ devices: DeviceScheduler) async throws {
        let zones = ["p": "Europe/Paris", "t": "Asia/Tokyo", "n": "America/New_York", "s": "Europe/Paris", "g": "Europe/Paris"]
        for (id, zone) in zones { try await devices.register(registration(id, zone: zone)) }
        for id in ["p", "t", "n", "g"] { _ = try await store.bindTags(["news"], deviceID: id) }
        _ = try await store.bindTags(["muted"], deviceID: "n")
        _ = try await store.bindTags(["sports"], deviceID: "s")
        for id in ["p", "s"] { _ = try await store.bindAccount("alice", deviceID: id) }
        _ = try await store.deactivateDevice(id: "g", at: instant("2026-11-26T11:00:00Z"))
    }

    /// 9:00 every day, floating: 9:00 where each device is.
    static let nine: RequestSpec = {
        var components = CalendarComponents()
        components.hour = 9
        return spec("nine", .calendar(components, repeats: true, matching: .apple))
    }()

    /// Which devices have the request `identifier` pending, with its next fire date.
    static func pending(_ identifier: String, _ devices: DeviceScheduler) async throws -> [String: Date] {
        var found: [String: Date] = [:]
        for id in ["p", "t", "n", "s", "g"] {
            for request in try await devices.pendingRequests(forDevice: id) where request.identifier == identifier {
                found[id] = request.nextFireDate
            }
        }
        return found
    }

    @Test("a tag expression reaches its active devices, each planned in its own zone; accounts and all reach theirs")
    func swiftAPI() async throws {
        try await withDeviceScheduler { store, devices in
            try await Self.register(store, devices)
            let readers = try TagExpression(json: ["and": [["tag": "news"], ["not": ["tag": "muted"]]]])
            let report = try await devices.schedule(Self.nine, for: .tag(readers))
            #expect(report.scheduled == 2 && report.failures.isEmpty)
            #expect(
                try await Self.pending("nine", devices) == [
                    "p": instant("2026-11-27T08:00:00Z"), "t": instant("2026-11-27T00:00:00Z"),
                ])
            // Stored floating: the device's zone is pinned now, and a move re-plans it there.
            try await devices.register(registration("t", zone: "America/New_York"))
            #expect(try await Self.pending("nine", devices)["t"] == instant("2026-11-26T14:00:00Z"))

            var account = Self.nine
            account.identifier = "alice"
            #expect(try await devices.schedule(account, for: .account("alice")).scheduled == 2)
            #expect(Set(try await Self.pending("alice", devices).keys) == ["p", "s"])

            var all = Self.nine
            all.identifier = "all"
            #expect(try await devices.schedule(all, for: .all).scheduled == 4)
            #expect(Set(try await Self.pending("all", devices).keys) == ["p", "t", "n", "s"])

            // A listed target reports its unknown and inactive devices instead of leaving them out.
            var listed = Self.nine
            listed.identifier = "listed"
            let listing = try await devices.schedule(listed, for: .devices(["p", "g", "ghost"]))
            #expect(listing.scheduled == 1)
            #expect(Set(listing.failures.keys) == ["g", "ghost"])
        }
    }

    @Test("an invalid request is refused before any device gets it")
    func refusedRequest() async throws {
        try await withDeviceScheduler { store, devices in
            try await Self.register(store, devices)
            var components = CalendarComponents()
            components.hour = 25
            let bad = spec("bad", .calendar(components, repeats: false, matching: .apple))
            await #expect(throws: EngineError.self) { try await devices.schedule(bad, for: .all) }
            #expect(try await Self.pending("bad", devices).isEmpty)
        }
    }

    @Test("a date already past in some zones: the devices where it is still to come get it, the others fail")
    func pastInSomeZones() async throws {
        try await withDeviceScheduler { store, devices in
            try await Self.register(store, devices)
            // 2026-11-26 20:30 floating, at 12:00Z: 11:30Z in Tokyo (past), 19:30Z in Paris, 01:30Z the next day in
            // New York.
            var components = CalendarComponents()
            (components.year, components.month, components.day, components.hour, components.minute) = (2026, 11, 26, 20, 30)
            let evening = spec("evening", .calendar(components, repeats: false, matching: .apple))
            let report = try await devices.schedule(evening, for: .all)
            #expect(report.scheduled == 3)
            #expect(Set(report.failures.keys) == ["t"])
            #expect(
                try await Self.pending("evening", devices) == [
                    "p": instant("2026-11-26T19:30:00Z"), "s": instant("2026-11-26T19:30:00Z"),
                    "n": instant("2026-11-27T01:30:00Z"),
                ])
        }
    }

    @Test("more devices than one page of the audience: every one of them gets the request")
    func severalPages() async throws {
        try await withDeviceScheduler { store, devices in
            let count = AudienceLimits.devicesPerPage + 5
            for index in 0..<count {
                try await devices.register(registration(String(format: "m%04d", index), zone: "Europe/Paris"))
            }
            let report = try await devices.schedule(Self.nine, for: .all)
            #expect(report.scheduled == count && report.failures.isEmpty)
            #expect(try await store.pendingCount() == count)
        }
    }

    @Test("POST /v1/requests with a target: 200 with the count; a bad target or both devices and target: 400")
    func httpAPI() async throws {
        try await withDeviceScheduler { store, devices in
            try await Self.register(store, devices)
            let application = Application(router: ServerAPI(devices: devices, token: ServerAPITests.token).router())
            try await application.test(.router) { client in
                let request = #""request":{"identifier":"nine","title":"t","trigger":{"calendar":{"hour":9},"repeats":true}}"#
                let tagged = #"{"target":{"tag":{"and":[{"tag":"news"},{"not":{"tag":"muted"}}]}},\#(request)}"#
                let (status, answer) = try await ServerAPITests.send(client, .post, "/v1/requests", tagged)
                #expect(status == .ok)
                #expect(answer["scheduled"] as? Int == 2 && answer["failedCount"] as? Int == 0)
                #expect(Set(try await Self.pending("nine", devices).keys) == ["p", "t"])

                let listed = #"{"target":{"devices":["p","ghost"]},\#(request)}"#
                let (partial, report) = try await ServerAPITests.send(client, .post, "/v1/requests", listed)
                #expect(partial.code == 207)
                #expect(report["scheduled"] as? Int == 1 && report["failedCount"] as? Int == 1)
                let failed = try #require(report["failed"] as? [String: [String: String]])
                #expect(failed["ghost"]?["reason"] == "UnknownDevice")

                for (body, reason) in [
                    (#"{"target":{"planet":"mars"},\#(request)}"#, "UnknownTarget"),
                    (#"{"target":{"all":1},\#(request)}"#, "BadRequest"),
                    (#"{"target":{"all":true},"devices":["p"],\#(request)}"#, "BadRequest"),
                    (#"{"target":{"all":true},"atomic":true,\#(request)}"#, "BadRequest"),
                    (#"{"target":{"all":true},"request":{"identifier":"x","trigger":{"calendar":{"hour":25}}}}"#, "InvalidTrigger"),
                ] {
                    let (bad, answer) = try await ServerAPITests.send(client, .post, "/v1/requests", body)
                    #expect(bad == .badRequest, "\(body)")
                    #expect(answer["reason"] as? String == reason, "\(body): \(answer)")
                }
                #expect(try await Self.pending("x", devices).isEmpty)
            }
        }
    }
}
