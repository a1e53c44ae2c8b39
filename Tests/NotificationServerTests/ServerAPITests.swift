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
import TestPrograms

/// The worker's HTTP JSON API, in-process (`HummingbirdTesting` `.router`) on a fresh PostgreSQL database each.
@Suite("Server API: devices and requests over HTTP", .timeLimit(.minutes(2)))
struct ServerAPITests {
    static let token = "t0ken-for-tests"
    static let hex = String(repeating: "ab", count: 32)

    /// Runs `body` with a client of the API over a new database, its device scheduler beside it.
    func withAPI(
        _ body:
            @escaping @Sendable (any TestClientProtocol, DeviceScheduler, Router<ServerAPIRequestContext>) async throws
            -> Void
    ) async throws {
        try await withDeviceScheduler { _, devices in
            let api = ServerAPI(devices: devices, token: Self.token)
            let application = Application(router: api.router())
            try await application.test(.router) { client in try await body(client, devices, api.router()) }
        }
    }

    /// Sends JSON text with the token; returns status and the parsed body (`[:]` when empty).
    static func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
        authorization: String? = "Bearer \(token)"
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let authorization { headers[.authorization] = authorization }
        let response = try await client.execute(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
        let data = Data(response.body.readableBytesView)
        if data.isEmpty { return (response.status, [:]) }
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (response.status, object)
    }

    static let device =
        #"{"token":"\#(hex)","topic":"com.example.app","environment":"development","timeZone":"Europe/Paris","locale":"fr_FR"}"#

    @Test(
        "every route needs the bearer token: 401 with a JSON reason otherwise; a device's token opens only its own receipts and audience routes"
    )
    func unauthorized() async throws {
        try await withAPI { client, _, router in
            // d1's routes are called with d2's token (another device's: 401 everywhere) and with d1's own (401 but
            // on the 8 routes of the device itself).
            let d2 = String(repeating: "cd", count: 32)
            #expect(try await Self.send(client, .put, "/v1/devices/d1", Self.device).0 == .ok)
            let other = Self.device.replacingOccurrences(of: Self.hex, with: d2)
            #expect(try await Self.send(client, .put, "/v1/devices/d2", other).0 == .ok)
            let deviceRoutes: Set<String> = [
                "PUT /v1/devices/{id}/account", "DELETE /v1/devices/{id}/account", "POST /v1/devices/{id}/aliases",
                "DELETE /v1/devices/{id}/aliases/{alias}", "POST /v1/devices/{id}/tags",
                "DELETE /v1/devices/{id}/tags/{tag}", "GET /v1/devices/{id}/audience", "POST /v1/devices/{id}/receipts",
            ]
            let routes = Self.routes(router)
            #expect(deviceRoutes.isSubset(of: Set(routes)))
            // 11 device and status routes (issue 12) and 18 push-service routes (issue 20: PushAPITests,
            // PushDeliveryTests, PushReceiptTests, PushCenterTests; the receipts route checks the device's token
            // instead, and answers 401 too).
            #expect(routes.count == 29)
            for route in routes {
                let parts = route.split(separator: " ")
                let path = String(parts[1]).replacingOccurrences(of: "{id}", with: "d1")
                    .replacingOccurrences(of: "{identifier}", with: "r1")
                    .replacingOccurrences(of: "{alias}", with: "a1").replacingOccurrences(of: "{tag}", with: "t1")
                    .replacingOccurrences(of: "{account}", with: "u1")
                    .replacingOccurrences(of: "{messageId}", with: "m1")
                    .replacingOccurrences(of: "{topic}", with: "com.example.app")
                let method = HTTPRequest.Method(String(parts[0]))!
                for authorization in [
                    nil, "Bearer wrong", "Basic \(Self.token)", "Bearer \(Self.token)x", "Bearer \(d2)",
                    "Bearer \(d2.uppercased())", "Basic \(Self.hex)",
                ] {
                    let (status, body) = try await Self.send(client, method, path, "{}", authorization: authorization)
                    #expect(status == .unauthorized, "\(route) with \(authorization ?? "nothing")")
                    #expect(body["reason"] as? String == "Unauthorized")
                    #expect((body["detail"] as? String)?.contains("Bearer") == true)
                }
                // The device's own token: past the check on its own routes (200, or 400 for the "{}" body), 401
                // elsewhere.
                let (status, body) = try await Self.send(
                    client, method, path, "{}", authorization: "Bearer \(Self.hex)")
                if deviceRoutes.contains(route) {
                    #expect(status == .ok || status == .badRequest, "\(route) with d1's token: \(status) \(body)")
                } else {
                    #expect(status == .unauthorized, "\(route) with d1's token")
                }
            }
        }
    }

    @Test("PUT, GET and DELETE a device; updating keeps one device")
    func deviceLifecycle() async throws {
        try await withAPI { client, devices, _ in
            let (created, body) = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            #expect(created == .ok)
            #expect(body["id"] as? String == "d1")
            #expect(body["token"] as? String == Self.hex)
            #expect(body["timeZone"] as? String == "Europe/Paris")
            #expect(body["active"] as? Bool == true)
            let moved = Self.device.replacingOccurrences(of: "Europe/Paris", with: "America/New_York")
            #expect(try await Self.send(client, .put, "/v1/devices/d1", moved).0 == .ok)
            let (read, shown) = try await Self.send(client, .get, "/v1/devices/d1")
            #expect(read == .ok)
            #expect(shown["timeZone"] as? String == "America/New_York")
            #expect(try await devices.devices().map(\.id) == ["d1"])
            #expect(try await Self.send(client, .delete, "/v1/devices/d1").0 == .noContent)
            let (gone, reason) = try await Self.send(client, .get, "/v1/devices/d1")
            #expect(gone == .notFound)
            #expect(reason["reason"] as? String == "UnknownDevice")
            #expect(try await Self.send(client, .delete, "/v1/devices/d1").0 == .notFound)
            #expect(try await devices.devices().isEmpty)
        }
    }

    @Test("a request is scheduled, listed with its next fire date in the device's zone, and cancelled")
    func requests() async throws {
        try await withAPI { client, devices, _ in
            _ = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            let daily = #"""
                {"identifier":"morning","title":"Bonjour","body":"Café","badge":3,"sound":"none",
                 "categoryIdentifier":"cat","threadIdentifier":"th","userInfo":{"n":1,"tags":["a"]},
                 "trigger":{"calendar":{"hour":9,"minute":0},"repeats":true}}
                """#
            let (status, stored) = try await Self.send(client, .post, "/v1/devices/d1/requests", daily)
            #expect(status == .created)
            // 9:00 in Paris on 27 November is 08:00 UTC (the clock is at 12:00 UTC on the 26th).
            #expect(stored["nextFireDate"] as? String == "2026-11-27T08:00:00Z")
            let interval = #"{"identifier":"soon","title":"t","trigger":{"timeInterval":60,"repeats":false}}"#
            #expect(try await Self.send(client, .post, "/v1/devices/d1/requests", interval).0 == .created)
            let (listed, list) = try await Self.send(client, .get, "/v1/devices/d1/requests")
            #expect(listed == .ok)
            let requests = try #require(list["requests"] as? [[String: Any]])
            #expect(requests.map { $0["identifier"] as? String } == ["morning", "soon"])
            #expect(requests.first?["badge"] as? Int == 3)
            #expect(requests.first?["sound"] as? String == "none")
            let pending = try await devices.pendingRequests(forDevice: "d1")
            let morning = try #require(pending.first { $0.identifier == "morning" })
            #expect(morning.spec.content.userInfo["tags"] == .array([.string("a")]))
            #expect(morning.spec.content.categoryIdentifier == "cat")
            #expect(try await Self.send(client, .delete, "/v1/devices/d1/requests/morning").0 == .noContent)
            let (missing, reason) = try await Self.send(client, .delete, "/v1/devices/d1/requests/morning")
            #expect(missing == .notFound)
            #expect(reason["reason"] as? String == "UnknownRequest")
            #expect(try await devices.pendingRequests(forDevice: "d1").map(\.identifier) == ["soon"])
        }
    }

    @Test("a request's APNs options are stored and listed; bad ones are refused")
    func apnsOptions() async throws {
        try await withAPI { client, devices, _ in
            _ = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            let body = #"""
                {"identifier":"score","title":"2-1","trigger":{"timeInterval":600},
                 "apns":{"expiration":"2026-11-26T13:00:00Z","priority":5,"collapseID":"match-42"}}
                """#
            let (status, stored) = try await Self.send(client, .post, "/v1/devices/d1/requests", body)
            #expect(status == .created)
            let apns = try #require(stored["apns"] as? [String: Any])
            #expect(apns["expiration"] as? String == "2026-11-26T13:00:00Z")
            #expect(apns["priority"] as? Int == 5)
            #expect(apns["collapseID"] as? String == "match-42")
            let pending = try await devices.pendingRequests(forDevice: "d1")
            #expect(
                pending.first?.spec.apns
                    == APNsOptions(expiration: instant("2026-11-26T13:00:00Z"), priority: 5, collapseID: "match-42"))
            let seconds = #"{"identifier":"s","trigger":{"timeInterval":600},"apns":{"expiration":1795000000}}"#
            #expect(try await Self.send(client, .post, "/v1/devices/d1/requests", seconds).0 == .created)
            let long = String(repeating: "x", count: 65)
            for bad in [
                #"{"priority":7}"#, #"{"collapseID":"\#(long)"}"#, #"{"collapseID":""}"#, #"{"expiration":"tomorrow"}"#,
                #"{"expiration":-5}"#, #"{"expiration":true}"#, #"{"urgency":"high"}"#, #""fast""#,
            ] {
                let request = #"{"identifier":"bad","trigger":{"timeInterval":600},"apns":\#(bad)}"#
                let (refused, reason) = try await Self.send(client, .post, "/v1/devices/d1/requests", request)
                #expect(refused == .badRequest, "\(bad)")
                #expect((reason["detail"] as? String)?.contains("apns") == true, "\(bad): \(reason)")
            }
            #expect(try await devices.pendingRequests(forDevice: "d1").map(\.identifier).sorted() == ["s", "score"])
        }
    }

    @Test("path parameters are percent-decoded: a device 'phone 1' and a request 'a/b'")
    func percentEncodedPaths() async throws {
        try await withAPI { client, devices, _ in
            #expect(try await Self.send(client, .put, "/v1/devices/phone%201", Self.device).0 == .ok)
            #expect(try await devices.device(id: "phone 1") != nil)
            let (read, shown) = try await Self.send(client, .get, "/v1/devices/phone%201")
            #expect(read == .ok)
            #expect(shown["id"] as? String == "phone 1")
            let slash = #"{"identifier":"a/b","trigger":{"timeInterval":600}}"#
            #expect(try await Self.send(client, .post, "/v1/devices/phone%201/requests", slash).0 == .created)
            #expect(try await devices.pendingRequests(forDevice: "phone 1").map(\.identifier) == ["a/b"])
            #expect(try await Self.send(client, .delete, "/v1/devices/phone%201/requests/a%2Fb").0 == .noContent)
            #expect(try await devices.pendingRequests(forDevice: "phone 1").isEmpty)
            let (bad, reason) = try await Self.send(client, .get, "/v1/devices/bad%zz")
            #expect(bad == .badRequest)
            #expect(reason["reason"] as? String == "BadRequest")
        }
    }

    @Test("GET /v1/devices lists devices; /v1/status and /metrics show the cluster's figures from the database")
    func statusAndMetrics() async throws {
        try await withAPI { client, devices, _ in
            _ = try await Self.send(client, .put, "/v1/devices/d2", Self.device)
            _ = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            _ = try await devices.store.deactivateDevice(id: "d2", at: instant("2026-11-26T12:00:00Z"))
            let later = #"{"identifier":"later","trigger":{"timeInterval":600}}"#
            #expect(try await Self.send(client, .post, "/v1/devices/d1/requests", later).0 == .created)

            let (listed, list) = try await Self.send(client, .get, "/v1/devices")
            #expect(listed == .ok)
            #expect((list["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d1", "d2"])
            let (_, active) = try await Self.send(client, .get, "/v1/devices?active=true")
            #expect((active["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d1"])
            let (bad, reason) = try await Self.send(client, .get, "/v1/devices?active=yes")
            #expect(bad == .badRequest && reason["reason"] as? String == "BadRequest")

            let (read, status) = try await Self.send(client, .get, "/v1/status")
            #expect(read == .ok)
            let cluster = try #require(status["cluster"] as? [String: Any])
            #expect(cluster["pending"] as? Int == 1)
            #expect(cluster["dueBacklog"] as? Int == 0)
            #expect(cluster["devices"] as? [String: Int] == ["active": 1, "inactive": 1])
            #expect(cluster["date"] as? String == "2026-11-26T12:00:00Z")
            #expect(cluster["latenessP50"] == nil, "no delivery, no percentile")
            let worker = try #require(status["worker"] as? [String: Any])
            #expect(worker["answers"] as? [String: Int] == [:])

            let response = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Self.token)"], body: nil)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: response.body)
            #expect(text.contains("unotify_cluster_pending 1"), "\(text)")
            #expect(text.contains(#"unotify_cluster_devices{state="inactive"} 1"#))
            #expect(text.contains("# TYPE unotify_worker_delivery_lateness_seconds histogram"))
        }
    }

    @Test("a worker's figures: answers by reason, deliveries per second over the last minute, lateness percentiles")
    func workerFigures() {
        let metrics = ServerMetrics(worker: "w1")
        let start = instant("2026-11-26T12:00:00Z")
        for index in 0..<100 {
            metrics.recordAnswer("Success", lateness: Double(index + 1) / 1000, at: start.addingTimeInterval(Double(index)))
        }
        metrics.recordAnswer("BadDeviceToken", at: start.addingTimeInterval(99))
        metrics.recordAnswer("GaveUp", at: start.addingTimeInterval(99))
        let figures = metrics.snapshot(at: start.addingTimeInterval(99))
        #expect(figures.answers == ["Success": 100, "BadDeviceToken": 1, "GaveUp": 1])
        // 60 of the 100 deliveries (one per second) fall in the last minute.
        #expect(figures.deliveriesPerSecond == 1)
        #expect(figures.latenessP50 == 0.05)
        #expect(figures.latenessP99 == 0.099)
        let text = metrics.exposition(cluster: ClusterStatistics(date: start, window: 60))
        #expect(text.contains(#"unotify_worker_apns_answers_total{worker="w1",reason="Success"} 100"#), "\(text)")
        #expect(text.contains(#"unotify_worker_deliveries_total{worker="w1"} 100"#))
        #expect(text.contains(#"unotify_worker_delivery_lateness_seconds_count{worker="w1"} 100"#))
        #expect(ServerMetrics(worker: "empty").snapshot(at: start).latenessP50 == nil)
    }

    @Test(
        "/metrics shows the newest pushes' and the topics' figures as gauges, failures by reason too; a series no longer given is removed"
    )
    func pushGauges() {
        let metrics = ServerMetrics(worker: "w1")
        let cluster = ClusterStatistics(date: instant("2026-11-26T12:00:00Z"), window: 60)
        let first = PushStatistics(
            messageID: "m1", targeted: 5, accepted: 3, failed: ["APNs: Unregistered": 1], cancelled: 0, received: 2,
            opened: 1)
        let second = PushStatistics(messageID: "m2", targeted: 2, accepted: 0, failed: [:], cancelled: 1)
        let app = PushStatistics(
            messageID: nil, targeted: 7, accepted: 3, failed: ["APNs: Unregistered": 1, "Device removed": 2],
            cancelled: 0, received: 2, opened: 1, dismissed: 1)
        let text = metrics.exposition(cluster: cluster, pushes: [first, second], topics: [("com.example.app", app)])
        for line in [
            #"unotify_push_failed_by_reason{message_id="m1",reason="APNs: Unregistered"} 1.0"#,
            #"unotify_topic_targeted{topic="com.example.app"} 7.0"#, #"unotify_topic_sent{topic="com.example.app"} 6.0"#,
            #"unotify_topic_pending{topic="com.example.app"} 1.0"#,
            #"unotify_topic_dismissed{topic="com.example.app"} 1.0"#,
            #"unotify_topic_failed_by_reason{topic="com.example.app",reason="Device removed"} 2.0"#,
            #"unotify_push_targeted{message_id="m1"} 5.0"#, #"unotify_push_sent{message_id="m1"} 4.0"#,
            #"unotify_push_accepted{message_id="m1"} 3.0"#, #"unotify_push_failed{message_id="m1"} 1.0"#,
            #"unotify_push_pending{message_id="m1"} 1.0"#, #"unotify_push_received{message_id="m1"} 2.0"#,
            #"unotify_push_opened{message_id="m1"} 1.0"#, #"unotify_push_targeted{message_id="m2"} 2.0"#,
            #"unotify_push_cancelled{message_id="m2"} 1.0"#, #"unotify_push_pending{message_id="m2"} 1.0"#,
            "# TYPE unotify_push_targeted gauge",
        ] {
            #expect(text.contains(line + "\n"), "\(line) in \(text)")
        }
        // m1 is no longer among the newest: its series go; m2's are updated.
        var updated = second
        updated.accepted = 1
        var fewerFailures = app
        fewerFailures.failed = ["Device removed": 2]
        let later = metrics.exposition(
            cluster: cluster, pushes: [updated], topics: [("com.example.app", fewerFailures)])
        #expect(!later.contains(#"message_id="m1""#), "\(later)")
        #expect(later.contains(#"unotify_push_accepted{message_id="m2"} 1.0"# + "\n"))
        #expect(!later.contains("APNs: Unregistered") && later.contains(#"reason="Device removed"} 2.0"#))
        // No pushes and no topics: no such series at all.
        let none = metrics.exposition(cluster: cluster)
        #expect(!none.contains("unotify_push_") && !none.contains("unotify_topic_"))
    }

    @Test("POST /v1/requests schedules for many devices and names those it failed for")
    func manyDevices() async throws {
        try await withAPI { client, devices, _ in
            _ = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            _ = try await Self.send(client, .put, "/v1/devices/d2", Self.device)
            let body =
                #"{"devices":["d1","d2","ghost"],"request":{"identifier":"all","title":"t","trigger":{"timeInterval":600}}}"#
            let (status, answer) = try await Self.send(client, .post, "/v1/requests", body)
            #expect(status.code == 207)
            #expect(answer["scheduled"] as? [String] == ["d1", "d2"])
            let failed = try #require(answer["failed"] as? [String: [String: String]])
            #expect(failed["ghost"]?["reason"] == "UnknownDevice")
            for id in ["d1", "d2"] {
                #expect(try await devices.pendingRequests(forDevice: id).map(\.identifier) == ["all"])
            }
            let good = #"{"devices":["d1"],"request":{"identifier":"one","trigger":{"timeInterval":600}}}"#
            #expect(try await Self.send(client, .post, "/v1/requests", good).0 == .ok)
        }
    }

    @Test(
        "bad input gets a 4xx JSON reason and loses nothing already scheduled",
        arguments: [
            ("PUT", "/v1/devices/d1", "{not json", 400, "BadJSON"),
            ("PUT", "/v1/devices/d1", "[1,2]", 400, "BadJSON"),
            ("PUT", "/v1/devices/d1", #"{"token":"xyz","topic":"com.example.app"}"#, 400, "MalformedToken"),
            ("PUT", "/v1/devices/d1", #"{"token":12,"topic":"com.example.app"}"#, 400, "BadRequest"),
            (
                "PUT", "/v1/devices/d1", #"{"token":"\#(hex)","topic":"a","timeZone":"Mars/Olympus"}"#, 400,
                "UnknownTimeZone"
            ),
            ("PUT", "/v1/devices/d1", #"{"token":"\#(hex)","topic":"a","environment":"staging"}"#, 400, "BadRequest"),
            (
                "POST", "/v1/devices/ghost/requests", #"{"identifier":"x","trigger":{"timeInterval":60}}"#, 404,
                "UnknownDevice"
            ),
            (
                "POST", "/v1/devices/d1/requests", #"{"identifier":"x","trigger":{"timeInterval":0}}"#, 400,
                "InvalidTrigger"
            ),
            (
                "POST", "/v1/devices/d1/requests", #"{"identifier":"x","trigger":{"timeInterval":30,"repeats":true}}"#,
                400, "InvalidTrigger"
            ),
            (
                "POST", "/v1/devices/d1/requests", #"{"identifier":"x","trigger":{"calendar":{"hour":25}}}"#, 400,
                "InvalidTrigger"
            ),
            ("POST", "/v1/devices/d1/requests", #"{"identifier":"x","trigger":{}}"#, 400, "InvalidTrigger"),
            ("POST", "/v1/devices/d1/requests", #"{"identifier":"x","badge":"three"}"#, 400, "BadRequest"),
            (
                "POST", "/v1/devices/d1/requests", #"{"identifier":"x","trigger":{"timeInterval":60,"repeats":"yes"}}"#,
                400, "BadRequest"
            ),
            ("POST", "/v1/devices/d1/requests", #"{"identifier":"x","title":true}"#, 400, "BadRequest"),
            ("POST", "/v1/devices/d1/requests", #"{"title":"no identifier"}"#, 400, "BadRequest"),
            ("POST", "/v1/devices/d1/requests", #"{"identifier":"x","colour":"red"}"#, 400, "BadRequest"),
            ("POST", "/v1/devices/d1/requests", #"{"identifier":"x","userInfo":[1]}"#, 400, "BadRequest"),
            ("POST", "/v1/requests", #"{"devices":"d1","request":{"identifier":"x"}}"#, 400, "BadRequest"),
            ("POST", "/v1/requests", #"{"devices":["d1"]}"#, 400, "BadRequest"),
            ("GET", "/v1/nothing", "", 404, "NotFound"),
        ])
    func badInput(method: String, path: String, json: String, status: Int, reason: String) async throws {
        try await withAPI { client, devices, _ in
            _ = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            let keep = #"{"identifier":"keep","trigger":{"timeInterval":3600}}"#
            #expect(try await Self.send(client, .post, "/v1/devices/d1/requests", keep).0 == .created)
            let (answer, body) = try await Self.send(client, HTTPRequest.Method(method)!, path, json)
            #expect(answer.code == status, "\(method) \(path) \(json)")
            #expect(body["reason"] as? String == reason, "\(body)")
            #expect((body["detail"] as? String)?.isEmpty == false)
            #expect(try await devices.pendingRequests(forDevice: "d1").map(\.identifier) == ["keep"])
            #expect(try await devices.device(id: "d1")?.timeZoneIdentifier == "Europe/Paris")
        }
    }

    @Test("a body over 64 KiB gets 413, with or without Content-Length")
    func oversize() async throws {
        try await withAPI { client, devices, _ in
            _ = try await Self.send(client, .put, "/v1/devices/d1", Self.device)
            let big = #"{"identifier":"big","body":""# + String(repeating: "x", count: 70_000) + #""}"#
            let (status, body) = try await Self.send(client, .post, "/v1/devices/d1/requests", big)
            #expect(status == .contentTooLarge)
            #expect(body["reason"] as? String == "PayloadTooLarge")
            let chunked = try await client.execute(
                uri: "/v1/devices/d1/requests", method: .post,
                headers: [.authorization: "Bearer \(Self.token)", .transferEncoding: "chunked"],
                body: ByteBuffer(string: big))
            #expect(chunked.status == .contentTooLarge)
            #expect(try await devices.pendingRequests(forDevice: "d1").isEmpty)
        }
    }

    /// The API routes a router serves; Hummingbird spells captures as OpenAPI does: `PUT /v1/devices/{id}`. The
    /// statistics pages for a browser (`/center`, HTML behind the web center's rules: PushCenterTests) are not API.
    static func routes(_ router: Router<ServerAPIRequestContext>) -> [String] {
        router.routes.filter { !$0.path.description.hasPrefix("/center") }.map { "\($0.method) \($0.path)" }.sorted()
    }

    /// The operations of docs/openapi/server-api.yaml, read minimally: under `paths:`, a path is a key indented by
    /// two spaces, its operations keys indented by four (`parameters` is not an operation).
    static func documentedRoutes() throws -> [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/openapi/server-api.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        var inPaths = false
        var path: String?
        var routes: [String] = []
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /") && !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    ") && !line.hasPrefix("     "), let path,
                let key = line.dropFirst(4).split(separator: ":").first, methods.contains(String(key))
            {
                routes.append("\(key.uppercased()) \(path)")
            }
        }
        return routes.sorted()
    }

    @Test("docs/openapi/server-api.yaml is valid YAML, and every $ref names a component it defines")
    func openAPIDocumentParses() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/openapi/server-api.yaml")
        // Debian's python3-yaml (scripts/test installs it): a real YAML parser, where documentedRoutes() reads only
        // the keys it needs. A description with ": " in a plain scalar once made the whole file unreadable.
        let script = """
            import sys, yaml
            document = yaml.safe_load(open(sys.argv[1]))
            refs = []
            def walk(node):
                if isinstance(node, dict):
                    for key, value in node.items():
                        if key == "$ref": refs.append(value)
                        else: walk(value)
                elif isinstance(node, list):
                    for value in node: walk(value)
            walk(document)
            missing = []
            for ref in refs:
                node = document
                for part in ref.lstrip("#/").split("/"):
                    node = node.get(part) if isinstance(node, dict) else None
                if node is None: missing.append(ref)
            print(len(document["paths"]), len(refs), " ".join(sorted(set(missing))))
            """
        let output = try await runProgram("/usr/bin/python3", ["-c", script, file.path])
        #expect(output.status == 0, "\(output.stderr)")
        let fields = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        #expect(fields.count == 2, "unresolved $ref: \(fields.dropFirst(2).joined(separator: ", "))")
        #expect((Int(fields.first ?? "") ?? 0) > 20 && (Int(fields.dropFirst().first ?? "") ?? 0) > 50, "\(output.stdout)")
    }

    @Test("docs/openapi/server-api.yaml describes exactly the routes the router serves")
    func openAPIDocument() async throws {
        try await withAPI { _, _, router in
            let served = Self.routes(router)
            let documented = try Self.documentedRoutes()
            #expect(served.count == 29)
            #expect(Set(served).subtracting(documented).isEmpty, "served but not documented")
            #expect(Set(documented).subtracting(served).isEmpty, "documented but not served")
            #expect(served == documented)
        }
    }
}
