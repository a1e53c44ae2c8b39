import Foundation
import NotificationModel
import NotificationPushGateway
import TestPrograms
import Testing

/// curl 7.88 (nghttp2) against the endpoint: h2c with prior knowledge, HTTP/1.1, TLS.
@Suite("APNs endpoint with curl")
struct CurlTests {
    static let alert = #"{"aps":{"alert":{"title":"Hi","body":"from curl"},"sound":"default"}}"#

    @Test("h2c prior knowledge: 200, the apns-id echoed, the notification shown")
    func h2cSuccess() async throws {
        let fixture = try await EndpointFixture()
        let id = "123E4567-E89B-12D3-A456-426614174000"
        let response = try await curl([
            "--http2-prior-knowledge", "-X", "POST", fixture.url, "-H", "apns-topic: \(testAppID)",
            "-H", "apns-push-type: alert", "-H", "apns-priority: 10", "-H", "apns-expiration: 0", "-H",
            "apns-id: \(id)",
            "-d", Self.alert,
        ])
        #expect(response.httpVersion == "HTTP/2")
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == id.lowercased())
        #expect(response.body.isEmpty)
        #expect(fixture.shown == ["from curl"])
        await fixture.endpoint.stop()
    }

    @Test("an apns-id is generated when absent; HTTP/1.1 without prior knowledge works too")
    func http1AndGeneratedID() async throws {
        let fixture = try await EndpointFixture()
        let response = try await curl(["--http1.1", "-X", "POST", fixture.url, "-d", Self.alert])
        #expect(response.httpVersion == "HTTP/1.1")
        #expect(response.status == 200)
        #expect(isLowercaseUUID(response.headers["apns-id"] ?? ""))
        #expect(fixture.shown == ["from curl"])
        await fixture.endpoint.stop()
    }

    @Test(
        "errors answer APNs's status, apns-id and {\"reason\"} over h2c and HTTP/1.1",
        arguments: [
            (["-X", "GET"], "/3/device/T", "MethodNotAllowed", 405),
            (["-X", "POST"], "/3/devices/T", "BadPath", 404),
            (["-X", "POST"], "/3/device/", "MissingDeviceToken", 400),
            (["-X", "POST"], "/3/device/abcd", "BadDeviceToken", 400),
            (["-X", "POST", "-H", "apns-priority: 7"], "/3/device/T", "BadPriority", 400),
            (["-X", "POST", "-H", "apns-push-type: fax"], "/3/device/T", "InvalidPushType", 400),
            (["-X", "POST", "-H", "apns-id: nope"], "/3/device/T", "BadMessageId", 400),
            (["-X", "POST", "-H", "apns-expiration: later"], "/3/device/T", "BadExpirationDate", 400),
            (["-X", "POST", "-H", "apns-topic: com.example.other"], "/3/device/T", "DeviceTokenNotForTopic", 400),
            (["-X", "POST", "-H", "apns-topic: a", "-H", "apns-topic: b"], "/3/device/T", "DuplicateHeaders", 400),
            (
                ["-X", "POST", "-H", "apns-collapse-id: \(String(repeating: "c", count: 65))"], "/3/device/T",
                "BadCollapseId", 400
            ),
            (
                ["-X", "POST", "-H", "apns-push-type: voip", "-H", "apns-topic: \(testAppID).voip"], "/3/device/T", "",
                200
            ),
        ] as [([String], String, String, Int)])
    func errors(options: [String], path: String, reason: String, status: Int) async throws {
        let fixture = try await EndpointFixture()
        let url =
            "http://127.0.0.1:\(fixture.port)" + path.replacingOccurrences(of: "/T", with: "/\(fixture.token.hex)")
        for mode in ["--http2-prior-knowledge", "--http1.1"] {
            let response = try await curl([mode] + options + [url, "-d", Self.alert])
            #expect(response.status == status, "\(mode) \(options)")
            #expect(isLowercaseUUID(response.headers["apns-id"] ?? ""), "\(mode) \(options)")
            if status == 200 {
                #expect(response.body.isEmpty)
            } else {
                #expect(response.reason == reason, "\(mode) \(options): \(response.body)")
                #expect(response.headers["content-type"] == "application/json")
            }
        }
        await fixture.endpoint.stop()
    }

    @Test("an empty body is PayloadEmpty; 4097 bytes PayloadTooLarge; 100 kB too, without buffering it")
    func payloadSizes() async throws {
        let fixture = try await EndpointFixture()
        let folder = try temporaryFolder("gw-curl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = try await curl(["--http2-prior-knowledge", "-X", "POST", fixture.url, "--data-binary", ""])
        #expect(empty.status == 400 && empty.reason == "PayloadEmpty")
        for size in [4_097, 100_000] {
            let file = folder.appendingPathComponent("big.json")
            let padding = String(repeating: "x", count: size - 28)
            try Data(#"{"aps":{"alert":"a"},"p":"\#(padding)"}"#.utf8).write(to: file)
            let big = try await curl([
                "--http2-prior-knowledge", "-X", "POST", fixture.url, "--data-binary", "@\(file.path)",
            ])
            #expect(big.status == 413 && big.reason == "PayloadTooLarge", "\(size)")
        }
        #expect(fixture.shown.isEmpty)
        await fixture.endpoint.stop()
    }

    @Test("410 Unregistered carries the timestamp in milliseconds")
    func unregistered() async throws {
        let fixture = try await EndpointFixture()
        _ = try await fixture.system.scheduler.unregisterForRemoteNotifications(appID: testAppID)
        let response = try await curl(["--http2-prior-knowledge", "-X", "POST", fixture.url, "-d", Self.alert])
        #expect(response.status == 410 && response.reason == "Unregistered")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        #expect((object["timestamp"] as? NSNumber).map { $0.int64Value > 1_000_000_000_000 } == true)
        await fixture.endpoint.stop()
    }

    @Test("a collapse id replaces the delivered notification with the same id")
    func collapse() async throws {
        let fixture = try await EndpointFixture()
        for body in ["first", "second"] {
            let response = try await curl([
                "--http2-prior-knowledge", "-X", "POST", fixture.url, "-H", "apns-collapse-id: score",
                "-d", #"{"aps":{"alert":"\#(body)"}}"#,
            ])
            #expect(response.status == 200)
        }
        let delivered = try await fixture.system.scheduler.deliveredNotifications(appID: testAppID)
        #expect(delivered.map(\.identifier) == ["score"])
        await fixture.endpoint.stop()
    }

    @Test("TLS: HTTP/2 by ALPN, HTTP/1.1 by ALPN")
    func tls() async throws {
        let folder = try temporaryFolder("gw-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let fixture = try await EndpointFixture { $0.tls = .init(certificatePath: certificate, keyPath: key) }
        let url = "https://localhost:\(fixture.port)/3/device/\(fixture.token.hex)"
        let h2 = try await curl(["--http2", "--cacert", certificate, "-X", "POST", url, "-d", Self.alert])
        #expect(h2.httpVersion == "HTTP/2" && h2.status == 200)
        let h1 = try await curl(["--http1.1", "--cacert", certificate, "-X", "POST", url, "-d", Self.alert])
        #expect(h1.httpVersion == "HTTP/1.1" && h1.status == 200)
        let bad = try await curl(["--http2", "--cacert", certificate, "-X", "POST", url + "00", "-d", Self.alert])
        #expect(bad.status == 400 && bad.reason == "BadDeviceToken")
        await fixture.endpoint.stop()
    }

    @Test("after stop, nothing listens; a non-loopback address needs allowsRemote")
    func lifecycle() async throws {
        let fixture = try await EndpointFixture()
        await fixture.endpoint.stop()
        let result = try await runProgram(
            "/usr/bin/curl", ["-s", "--http2-prior-knowledge", "-X", "POST", fixture.url, "-d", "{}"])
        #expect(result.status != 0)
        let remote = APNsEndpoint(
            configuration: APNsEndpointConfiguration(address: APNsEndpointAddress(host: "0.0.0.0", port: 0)),
            responder: { _ in .success(apnsID: "x") })
        await #expect(throws: APNsEndpointError.self) { try await remote.start() }
        #expect(try APNsEndpointAddress(parsing: "[::1]:2197") == APNsEndpointAddress(host: "::1", port: 2197))
        #expect(throws: APNsEndpointError.self) { try APNsEndpointAddress(parsing: "localhost") }
    }
}
