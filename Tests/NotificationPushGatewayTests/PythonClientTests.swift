import Foundation
import NotificationEngine
import NotificationModel
import NotificationPushGateway
import TestPrograms
import Testing

/// The Python clients' side: httpx (with h2) and aioapns, one script, one JSON result per line.
private let clientScript = #"""
    import asyncio, json, ssl, sys, time
    mode, port, token, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    cafile, keyfile, key_id, team = (sys.argv[5:9] + [None] * 4)[:4]
    body = {"aps": {"alert": {"title": "Hi", "body": "from " + mode}, "sound": "default"}}

    def out(**fields):
        print(json.dumps(fields), flush=True)

    def bearer(iat_offset=0, kid=None, team_id=None, sign_with=None):
        import jwt
        key = open(sign_with or keyfile).read()
        return "bearer " + jwt.encode({"iss": team_id or team, "iat": int(time.time()) + iat_offset}, key,
                                      algorithm="ES256", headers={"kid": kid or key_id})

    def record(label, response):
        text = response.text
        out(label=label, version=response.http_version, status=response.status_code,
            apns_id=response.headers.get("apns-id"), reason=json.loads(text)["reason"] if text else None)

    if mode == "httpx-h2c":
        import httpx
        with httpx.Client(http1=False, http2=True, timeout=30) as client:  # a bound for a loaded machine
            url = f"http://127.0.0.1:{port}/3/device/"
            record("ok", client.post(url + token, json=body, headers={"apns-topic": topic, "apns-push-type": "alert"}))
            record("id", client.post(url + token, json=body, headers={"apns-id": "E5A6D5C4-1B2C-4D3E-8F9A-0B1C2D3E4F5A"}))
            record("bad-token", client.post(url + "00" * 32, json=body))
            record("priority", client.post(url + token, json=body, headers={"apns-priority": "3"}))
            record("method", client.put(url + token, json=body))
            record("push-type", client.post(url + token, json=body, headers={"apns-push-type": "background",
                                                                            "apns-priority": "10"}))
    elif mode == "httpx-tls":
        import httpx
        context = ssl.create_default_context(cafile=cafile)
        with httpx.Client(http2=True, verify=context, timeout=30) as client:
            url = f"https://localhost:{port}/3/device/" + token
            headers = {"apns-topic": topic, "apns-push-type": "alert"}
            record("missing", client.post(url, json=body, headers=headers))
            record("garbage", client.post(url, json=body, headers={**headers, "authorization": "bearer x.y.z"}))
            record("unknown-kid", client.post(url, json=body, headers={**headers, "authorization": bearer(kid="NOTAKEY000")}))
            record("other-team", client.post(url, json=body, headers={**headers, "authorization": bearer(team_id="OTHERTEAM0")}))
            record("expired", client.post(url, json=body, headers={**headers, "authorization": bearer(iat_offset=-7200)}))
            good = bearer()
            record("no-topic", client.post(url, json=body, headers={"authorization": good}))
            record("ok", client.post(url, json=body, headers={**headers, "authorization": good}))
            record("again", client.post(url, json=body, headers={**headers, "authorization": good}))
            record("refresh", client.post(url, json=body, headers={**headers, "authorization": bearer(iat_offset=-1)}))
    elif mode in ("aioapns", "aioapns-production"):
        import aioapns.connection
        from aioapns import APNs, NotificationRequest, PushType
        # aioapns targets Apple's hosts through class attributes and speaks TLS only, without ALPN.
        aioapns.connection.APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
        aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = "localhost"
        aioapns.connection.APNsTLSClientProtocol.APNS_PORT = port
        async def main():
            client = APNs(key=open(keyfile).read(), key_id=key_id, team_id=team, topic=topic,
                          use_sandbox=mode == "aioapns", ssl_context=ssl.create_default_context(cafile=cafile))
            for label, device in [("ok", token), ("bad-token", "00" * 32)]:
                result = await client.send_notification(NotificationRequest(
                    device_token=device, message=body, push_type=PushType.ALERT))
                out(label=label, status=int(result.status), ok=result.is_successful, apns_id=result.notification_id,
                    reason=result.description)
        asyncio.run(main())
    elif mode == "aioapns-certificate":
        # keyfile is the client certificate and its key in one PEM file; key_id says which host: sandbox or not.
        import aioapns.connection
        from aioapns import APNs, NotificationRequest, PushType
        aioapns.connection.APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
        aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = "localhost"
        aioapns.connection.APNsTLSClientProtocol.APNS_PORT = port
        async def main():
            # No topic: aioapns reads the certificate's subject UID, as Apple's certificates carry the bundle id.
            client = APNs(client_cert=keyfile, use_sandbox=key_id == "sandbox",
                          ssl_context=ssl.create_default_context(cafile=cafile))
            result = await client.send_notification(NotificationRequest(
                device_token=token, message=body, push_type=PushType.ALERT))
            out(label=team, status=int(result.status), ok=result.is_successful, apns_id=result.notification_id,
                reason=result.description)
        asyncio.run(main())
    """#

/// One result line of the script.
private struct ClientResult: Decodable {
    var label: String
    var status: Int
    var version: String?
    var apns_id: String?
    var reason: String?
    var ok: Bool?
}

/// Runs the script with ``testPython``; the results by label.
private func runClient(_ arguments: [String]) async throws -> [String: ClientResult] {
    let python = try #require(testPython)
    let folder = try temporaryFolder("gw-py")
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = folder.appendingPathComponent("client.py")
    try Data(clientScript.utf8).write(to: script)
    let result = try await runProgram(python, [script.path] + arguments, timeout: 60)
    try #require(result.status == 0, "python \(arguments[0]): \(result.stderr)")
    var results: [String: ClientResult] = [:]
    for line in result.stdout.split(separator: "\n") {
        let decoded = try JSONDecoder().decode(ClientResult.self, from: Data(line.utf8))
        results[decoded.label] = decoded
    }
    return results
}

/// Python HTTP/2 clients against the endpoint. They need a python with
/// `pip install 'httpx[http2]' aioapns pyjwt cryptography`: `OPENUN_PYTHON`, or the virtual environment `scripts/test`
/// makes (see ``testPython``).
@Suite(
    "APNs endpoint with Python clients", .serialized,
    .enabled(
        if: testPython != nil,
        "run scripts/test once (it makes a python with httpx[http2], aioapns, pyjwt and cryptography) or set OPENUN_PYTHON"
    ))
struct PythonClientTests {
    @Test("httpx over h2c (http1=False): statuses, apns-id and reasons")
    func httpxCleartext() async throws {
        let fixture = try await EndpointFixture()
        let results = try await runClient(["httpx-h2c", "\(fixture.port)", fixture.token.hex, testAppID])
        #expect(results["ok"]?.version == "HTTP/2" && results["ok"]?.status == 200)
        #expect(isLowercaseUUID(results["ok"]?.apns_id ?? ""))
        #expect(results["id"]?.apns_id == "e5a6d5c4-1b2c-4d3e-8f9a-0b1c2d3e4f5a")
        #expect(results["bad-token"]?.status == 400 && results["bad-token"]?.reason == "BadDeviceToken")
        #expect(results["priority"]?.status == 400 && results["priority"]?.reason == "BadPriority")
        #expect(results["method"]?.status == 405 && results["method"]?.reason == "MethodNotAllowed")
        #expect(results["push-type"]?.reason == "BadPriority")
        #expect(fixture.shown == ["from httpx-h2c", "from httpx-h2c"])
        await fixture.endpoint.stop()
    }

    @Test(
        "httpx over TLS with ES256 provider tokens: Missing, Invalid, Expired, MissingTopic, TooManyProviderTokenUpdates"
    )
    func httpxTLSWithTokens() async throws {
        let folder = try temporaryFolder("gw-httpx")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let authKey = try await makeAuthKey(keyID: "ABC123DEFG", in: folder)
        let verifier = try await ProviderTokenVerifier(authKeys: folder.path, teamID: "TEAM123456")
        let fixture = try await EndpointFixture {
            $0.tls = .init(certificatePath: certificate, keyPath: key)
            $0.providerTokens = verifier
        }
        let results = try await runClient([
            "httpx-tls", "\(fixture.port)", fixture.token.hex, testAppID, certificate, authKey, "ABC123DEFG",
            "TEAM123456",
        ])
        let expected: [(String, Int, String?)] = [
            ("missing", 403, "MissingProviderToken"), ("garbage", 403, "InvalidProviderToken"),
            ("unknown-kid", 403, "InvalidProviderToken"), ("other-team", 403, "InvalidProviderToken"),
            ("expired", 403, "ExpiredProviderToken"), ("no-topic", 400, "MissingTopic"), ("ok", 200, nil),
            ("again", 200, nil), ("refresh", 429, "TooManyProviderTokenUpdates"),
        ]
        for (label, status, reason) in expected {
            #expect(results[label]?.status == status, "\(label)")
            #expect(results[label]?.reason == reason, "\(label)")
            #expect(results[label]?.version == "HTTP/2", "\(label)")
            #expect(isLowercaseUUID(results[label]?.apns_id ?? ""), "\(label)")
        }
        #expect(fixture.shown == ["from httpx-tls", "from httpx-tls"])
        await fixture.endpoint.stop()
    }

    @Test("aioapns (TLS, no ALPN) sends with an ES256 provider token")
    func aioapns() async throws {
        let folder = try temporaryFolder("gw-aioapns")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let authKey = try await makeAuthKey(keyID: "KEY4567890", in: folder)
        let verifier = try await ProviderTokenVerifier(authKeys: authKey, teamID: "TEAM654321")
        let fixture = try await EndpointFixture {
            $0.tls = .init(certificatePath: certificate, keyPath: key)
            $0.providerTokens = verifier
        }
        let results = try await runClient([
            "aioapns", "\(fixture.port)", fixture.token.hex, testAppID, certificate, authKey, "KEY4567890",
            "TEAM654321",
        ])
        #expect(results["ok"]?.status == 200 && results["ok"]?.ok == true)
        #expect(isLowercaseUUID(results["ok"]?.apns_id ?? ""))
        #expect(results["bad-token"]?.status == 400 && results["bad-token"]?.reason == "BadDeviceToken")
        #expect(fixture.shown == ["from aioapns"])
        await fixture.endpoint.stop()
    }

    @Test("aioapns with provider tokens, a development token sent to the production endpoint: 400 BadDeviceToken")
    func aioapnsWrongEnvironment() async throws {
        let folder = try temporaryFolder("gw-aioapns-env")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let authKey = try await makeAuthKey(keyID: "KEY4567890", in: folder)
        let verifier = try await ProviderTokenVerifier(authKeys: authKey, teamID: "TEAM654321")
        // The fixture's token is a development one; this endpoint stands for production.
        let fixture = try await EndpointFixture(environment: .production) {
            $0.tls = .init(certificatePath: certificate, keyPath: key)
            $0.providerTokens = verifier
            $0.environment = .production
        }
        let results = try await runClient([
            "aioapns-production", "\(fixture.port)", fixture.token.hex, testAppID, certificate, authKey, "KEY4567890",
            "TEAM654321",
        ])
        #expect(results["ok"]?.status == 400 && results["ok"]?.reason == "BadDeviceToken")
        #expect(fixture.shown.isEmpty)
        await fixture.endpoint.stop()
    }

    @Test(
        "aioapns with client certificates from the documented recipe: development certificate 200, production one on the development endpoint 403 BadCertificateEnvironment"
    )
    func aioapnsCertificates() async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        let fixture = try await EndpointFixture {
            $0.tls = .init(
                certificatePath: certificates.server.certificate, keyPath: certificates.server.key,
                clientCertificateAuthorityPath: certificates.authority)
        }
        _ = try await fixture.system.center(for: certificateAppID)
        let token = try await fixture.system.scheduler.store.registerForRemoteNotifications(
            appID: certificateAppID, at: Date(), bundleDirectory: nil, environment: .development
        ).token
        var results: [String: ClientResult] = [:]
        for (label, name) in [("development", "development"), ("production", "production")] {
            // aioapns wants the certificate and its key in one file.
            let (certificate, key) = certificates.client(name)
            let combined = certificates.folder.appendingPathComponent("\(name)-client.pem")
            try (try Data(contentsOf: URL(fileURLWithPath: certificate)) + Data(contentsOf: URL(fileURLWithPath: key)))
                .write(to: combined)
            results.merge(
                try await runClient([
                    "aioapns-certificate", "\(fixture.port)", token.hex, certificateAppID,
                    certificates.server.certificate, combined.path, "sandbox", label,
                ])) { $1 }
        }
        #expect(results["development"]?.status == 200 && results["development"]?.ok == true)
        #expect(results["production"]?.status == 403 && results["production"]?.reason == "BadCertificateEnvironment")
        await fixture.endpoint.stop()
    }
}
