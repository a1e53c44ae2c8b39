import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationAPNsProvider
import NotificationEngine
import NotificationServer
import NotificationStorePostgres
import TestPrograms
import Testing

/// The API's own figures and the claim renewal's on `/metrics`, scraped from a live server after real requests.
@Suite("Server API: metrics of the API and of claim renewal", .timeLimit(.minutes(5)))
struct ServerAPIMetricsTests {
    static let token = "metrics-test-token-0123456789"

    @Test(
        "requests are counted by route pattern and status (unknown paths as unmatched, refusals too) and timed per route; /metrics shows them, never a raw path"
    )
    func apiRequests() async throws {
        try await withDeviceScheduler { _, devices in
            let metrics = ServerMetrics(worker: "w1")
            let api = ServerAPI(devices: devices, token: Self.token, metrics: metrics)
            let application = Application(router: api.router())
            try await application.test(.live) { client in try await Self.checkCounts(client) }
        }
    }

    /// Sends a request; with the token unless `token` is `nil`.
    static func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
        token: String? = ServerAPIMetricsTests.token
    ) async throws -> (HTTPResponse.Status, String) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
        return (response.status, String(buffer: response.body))
    }

    /// The steps of ``apiRequests()``, out of its closure (the compiler's SendNonSendable pass chokes on big closures).
    static func checkCounts(_ client: any TestClientProtocol) async throws {
        let hex = String(repeating: "ab", count: 32)
        let device = #"{"token":"\#(hex)","topic":"com.example.app","timeZone":"Europe/Paris"}"#
        #expect(try await send(client, .put, "/v1/devices/d1", device).0 == .ok)
        #expect(try await send(client, .put, "/v1/devices/d2", device.replacingOccurrences(of: "ab", with: "cd")).0 == .ok)
        #expect(try await send(client, .get, "/v1/devices/d1").0 == .ok)
        #expect(try await send(client, .get, "/v1/devices/d2").0 == .ok)
        #expect(try await send(client, .get, "/v1/devices/nobody").0 == .notFound)
        #expect(try await send(client, .get, "/v1/devices/d1", token: nil).0 == .unauthorized)
        #expect(try await send(client, .put, "/v1/devices/d3", "{").0 == .badRequest)
        // Paths and methods no route serves: one series, whatever the path.
        #expect(try await send(client, .get, "/wp-admin/setup.php").0 == .notFound)
        #expect(try await send(client, .get, "/v1/devices/d1/secret/x").0 == .notFound)
        #expect(try await send(client, .get, "/nowhere", token: nil).0 == .unauthorized)
        #expect(try await send(client, .patch, "/v1/status").0 == .notFound)
        let (status, first) = try await send(client, .get, "/metrics")
        #expect(status == .ok)
        let expected = [
            #"unotify_api_requests_total{worker="w1",route="PUT /v1/devices/{id}",status="200"} 2"#,
            #"unotify_api_requests_total{worker="w1",route="PUT /v1/devices/{id}",status="400"} 1"#,
            #"unotify_api_requests_total{worker="w1",route="GET /v1/devices/{id}",status="200"} 2"#,
            #"unotify_api_requests_total{worker="w1",route="GET /v1/devices/{id}",status="404"} 1"#,
            #"unotify_api_requests_total{worker="w1",route="GET /v1/devices/{id}",status="401"} 1"#,
            #"unotify_api_requests_total{worker="w1",route="unmatched",status="404"} 3"#,
            #"unotify_api_requests_total{worker="w1",route="unmatched",status="401"} 1"#,
            #"unotify_api_request_duration_seconds_count{worker="w1",route="GET /v1/devices/{id}"} 4"#,
            #"unotify_api_request_duration_seconds_count{worker="w1",route="PUT /v1/devices/{id}"} 3"#,
            #"unotify_api_request_duration_seconds_count{worker="w1",route="unmatched"} 4"#,
            #"unotify_api_request_duration_seconds_bucket{worker="w1",route="unmatched",le="+Inf"} 4"#,
            // At 0 until the engine reports an event.
            #"unotify_worker_claim_renewal_failures_total{worker="w1"} 0"#,
            #"unotify_worker_claims_taken_over_total{worker="w1"} 0"#,
        ]
        let lines = Set(first.split(separator: "\n").map(String.init))
        for line in expected { #expect(lines.contains(line), "missing: \(line)") }
        // Never a raw path or identifier as a label: only patterns and `unmatched`.
        let routes = Set(
            lines.filter { $0.hasPrefix("unotify_api_") }.compactMap { line -> String? in
                guard let range = line.range(of: #"route="[^"]*""#, options: .regularExpression) else { return nil }
                return String(line[range])
            })
        #expect(
            routes == [
                #"route="PUT /v1/devices/{id}""#, #"route="GET /v1/devices/{id}""#, #"route="unmatched""#,
            ], "\(routes)")
        // The scrape itself is counted once answered: the next scrape shows it.
        let (_, second) = try await send(client, .get, "/metrics")
        #expect(second.contains(#"unotify_api_requests_total{worker="w1",route="GET /metrics",status="200"} 1"#))
    }

    @Test("a worker counts the engine's failed renewals and claims taken over in unotify_worker_claim_* on /metrics")
    func claimRenewalCounters() async throws {
        let folder = try temporaryFolder("claim-metrics")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try APNsSigningKey(
            p8File: try await makeAuthKey(keyID: "ABC123DEFG", in: folder), teamID: "DEF123GHIJ")
        // Clients of an endpoint that is never called: the worker is only composed, its loop does not run.
        let client = try APNsClient(
            configuration: APNsClientConfiguration(server: APNsServer(host: "127.0.0.1", port: 9)), key: key)
        do {
            try await withDeviceScheduler { store, _ in
                let metrics = ServerMetrics(worker: "w2")
                let worker = ServerWorker(store: store, development: client, production: client, metrics: metrics)
                // What ClaimRenewal reports (ClaimRenewalTests checks that it does): through the hook the worker set.
                let observer = try #require(worker.scheduler.configuration.claimRenewalObserver)
                observer(.renewalFailed(claims: 32))
                observer(.renewalFailed(claims: 32))
                observer(.takenOver(claims: 3))
                let api = ServerAPI(devices: worker.devices, token: Self.token, metrics: metrics)
                try await Application(router: api.router()).test(.live) { client in
                    let (status, text) = try await Self.send(client, .get, "/metrics")
                    #expect(status == .ok)
                    #expect(text.contains(#"unotify_worker_claim_renewal_failures_total{worker="w2"} 2"#), "\(text)")
                    #expect(text.contains(#"unotify_worker_claims_taken_over_total{worker="w2"} 3"#))
                }
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
