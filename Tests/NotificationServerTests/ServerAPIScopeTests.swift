import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationServer
import Testing

/// Scopes in `--api-token-file` (`NAME TOKEN read,schedule`): every route of the router is given a scope, a client
/// outside its scopes gets 403 with a JSON reason on each route class, a line without scopes has them all, and
/// reloading the file changes them.
@Suite("Server API: client scopes", .timeLimit(.minutes(3)))
struct ServerAPIScopeTests {
    /// One client per scope, one with two, one without scopes (all of them).
    static let file = """
        reader     reader-token-0123456789 read
        scheduler  scheduler-token-0123456789 schedule
        registrar  registrar-token-0123456789 devices
        both       both-token-0123456789abcdef read,schedule
        admin      admin-token-0123456789abcdef
        """
    static let clients: [(name: String, token: String, scopes: ServerAPIScopes)] = [
        ("reader", "reader-token-0123456789", .read), ("scheduler", "scheduler-token-0123456789", .schedule),
        ("registrar", "registrar-token-0123456789", .devices),
        ("both", "both-token-0123456789abcdef", [.read, .schedule]),
        ("admin", "admin-token-0123456789abcdef", .all),
    ]

    /// The scope of every route the router serves (the device's receipts take the device's token, not a client's).
    static let expected: [String: ServerAPIScopes] = [
        "GET /metrics": .read, "GET /v1/status": .read, "GET /v1/devices": .read, "GET /v1/devices/{id}": .read,
        "GET /v1/devices/{id}/requests": .read, "GET /v1/devices/{id}/audience": .read,
        "GET /v1/accounts/{account}/devices": .read, "GET /v1/aliases/{alias}/devices": .read,
        "GET /v1/pushes/{messageId}": .read, "GET /v1/topics/{topic}/statistics": .read,
        "POST /v1/device-checks": .read, "POST /v1/audience-counts": .read, "POST /v1/center-links": .read,
        "POST /v1/devices/{id}/requests": .schedule, "DELETE /v1/devices/{id}/requests/{identifier}": .schedule,
        "POST /v1/requests": .schedule, "POST /v1/request-batches": .schedule, "POST /v1/pushes": .schedule,
        "POST /v1/mass-pushes": .schedule, "DELETE /v1/pushes/{messageId}": .schedule,
        "PUT /v1/devices/{id}": .devices, "DELETE /v1/devices/{id}": .devices, "PUT /v1/devices/{id}/account": .devices,
        "DELETE /v1/devices/{id}/account": .devices, "POST /v1/devices/{id}/aliases": .devices,
        "DELETE /v1/devices/{id}/aliases/{alias}": .devices, "POST /v1/devices/{id}/tags": .devices,
        "DELETE /v1/devices/{id}/tags/{tag}": .devices, "POST /v1/devices/{id}/receipts": [],
    ]

    /// A route's pattern with its parameters filled in.
    static func path(_ pattern: some StringProtocol) -> String {
        String(pattern).replacingOccurrences(of: "{id}", with: "d1").replacingOccurrences(
            of: "{identifier}", with: "r1"
        )
        .replacingOccurrences(of: "{alias}", with: "a1").replacingOccurrences(of: "{tag}", with: "t1")
        .replacingOccurrences(of: "{account}", with: "u1").replacingOccurrences(of: "{messageId}", with: "m1")
        .replacingOccurrences(of: "{topic}", with: "com.example.app")
    }

    @Test(
        "scopes in the token file: a comma-separated list after the token; none means all; the one-token form has all")
    func parsing() throws {
        let tokens = try ServerAPITokens(parsing: Self.file)
        for client in Self.clients {
            #expect(tokens.scopes(ofClient: client.name) == client.scopes, "\(client.name)")
            #expect(tokens.identify(presenting: client.token)?.client == client.name)
            #expect(tokens.identify(presenting: client.token)?.scopes == client.scopes)
        }
        #expect(tokens.scopes(ofClient: "nobody") == nil)
        #expect(try ServerAPITokens(parsing: "a-token-of-the-backend-0123456789\n").scopes(ofClient: "default") == .all)
        #expect(try ServerAPIScopes(parsing: "devices,read,devices") == [.devices, .read])
        #expect(ServerAPIScopes([.devices, .read]).description == "read,devices")
    }

    @Test("every route of the router has a scope: read for GETs and the POSTs that only read, schedule, devices")
    func everyRouteHasAScope() async throws {
        try await withDeviceScheduler { _, devices in
            let api = ServerAPI(devices: devices, token: "t")
            let routes = ServerAPITests.routes(api.router())
            #expect(Set(routes) == Set(Self.expected.keys))
            for route in routes where route != "POST /v1/devices/{id}/receipts" {
                let parts = route.split(separator: " ")
                let method = HTTPRequest.Method(String(parts[0]))!
                #expect(
                    ServerAPI.requiredScopes(method: method, path: Self.path(parts[1])) == Self.expected[route],
                    "\(route)")
            }
            // A path no route serves, or an odd spelling of one, needs every scope.
            for (method, path) in [
                (HTTPRequest.Method.post, "/v1/nothing"), (.put, "/v1/devices/d1/requests"), (.post, "/v1//requests"),
                (.delete, "/v2/devices/d1"), (.patch, "/v1/devices/d1"),
            ] {
                #expect(ServerAPI.requiredScopes(method: method, path: path) == .all, "\(method) \(path)")
            }
        }
    }

    @Test(
        "on every route, a client outside its scopes gets 403 Forbidden naming the missing scope; inside them it passes"
    )
    func forbiddenOutsideScopes() async throws {
        try await withDeviceScheduler { _, devices in
            let credentials = ServerAPICredentials(tokens: try ServerAPITokens(parsing: Self.file))
            let api = ServerAPI(devices: devices, credentials: credentials)
            let router = api.router()
            let routes = ServerAPITests.routes(router)
            try await Application(router: router).test(.router) { client in
                try await Self.checkRoutes(client, routes)
            }
        }
    }

    /// The requests of ``forbiddenOutsideScopes()``, out of its closure (the compiler's SendNonSendable pass chokes on
    /// big closures).
    static func checkRoutes(_ client: any TestClientProtocol, _ routes: [String]) async throws {
        var refused = 0
        for route in routes where route != "POST /v1/devices/{id}/receipts" {
            let needed = try #require(expected[route])
            let parts = route.split(separator: " ")
            let method = HTTPRequest.Method(String(parts[0]))!
            for caller in clients {
                let response = try await client.execute(
                    uri: path(parts[1]), method: method,
                    headers: [.authorization: "Bearer \(caller.token)", .contentType: "application/json"],
                    body: ByteBuffer(string: "{}"))
                let body = String(buffer: response.body)
                if caller.scopes.isSuperset(of: needed) {
                    #expect(
                        response.status != .forbidden && response.status != .unauthorized,
                        "\(route) by \(caller.name): \(body)")
                } else {
                    refused += 1
                    #expect(response.status == .forbidden, "\(route) by \(caller.name)")
                    let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
                    #expect(object?["reason"] as? String == "Forbidden")
                    let detail = object?["detail"] as? String ?? ""
                    #expect(
                        detail.contains("the client '\(caller.name)' has the scopes \(caller.scopes)")
                            && detail.hasSuffix("needs \(needed)"), "\(detail)")
                }
            }
        }
        // 13 read routes refused to 2 clients, 7 schedule routes to 2, 8 devices routes to 3.
        #expect(refused == 13 * 2 + 7 * 2 + 8 * 3)
    }

    @Test(
        "reloading the file changes a client's scopes from the next request; the /center pages take a read token only")
    func reloadAndCenter() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scopes-\(UUID().uuidString).tokens")
        defer { try? FileManager.default.removeItem(at: file) }
        try Self.file.write(to: file, atomically: true, encoding: .utf8)
        try await withDeviceScheduler { _, devices in
            let credentials = try ServerAPICredentials(file: file.path)
            let api = ServerAPI(devices: devices, credentials: credentials)
            try await Application(router: api.router()).test(.router) { client in
                try await Self.checkReload(client, credentials, file)
            }
        }
    }

    static func checkReload(_ client: any TestClientProtocol, _ credentials: ServerAPICredentials, _ file: URL)
        async throws
    {
        let device = #"{"token":"\#(String(repeating: "ab", count: 32))","topic":"com.example.app"}"#
        func register(_ token: String) async throws -> HTTPResponse.Status {
            try await client.execute(
                uri: "/v1/devices/d1", method: .put,
                headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                body: ByteBuffer(string: device)
            ).status
        }
        #expect(try await register("reader-token-0123456789") == .forbidden)
        try Self.file.replacingOccurrences(
            of: "reader-token-0123456789 read", with: "reader-token-0123456789 read,devices"
        )
        .write(to: file, atomically: true, encoding: .utf8)
        try credentials.reload()
        #expect(try await register("reader-token-0123456789") == .ok)
        // The statistics pages: with a bearer token of a client that may read, not with one that may not.
        for (token, allowed) in [("reader-token-0123456789", true), ("scheduler-token-0123456789", false)] {
            let page = try await client.execute(
                uri: "/center/topics", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect((page.status == .ok) == allowed, "\(token): \(page.status)")
        }
    }
}
