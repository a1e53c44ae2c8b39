import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import TestPrograms
import Testing

@testable import NotificationPushGateway

/// The openssl script of docs/apns-endpoint.md ("Make test certificates with openssl"), exactly as written there.
func documentedCertificateRecipe() throws -> String {
    let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/apns-endpoint.md")
    let text = try String(contentsOf: docs, encoding: .utf8)
    let marker = try #require(text.range(of: "Make test certificates with openssl"), "the recipe's sentence is gone")
    let rest = text[marker.upperBound...]
    let open = try #require(rest.range(of: "```shell-script\n"))
    let close = try #require(rest[open.upperBound...].range(of: "\n```\n"))
    return String(rest[open.upperBound..<close.lowerBound])
}

/// Test certificates made by running the documented recipe in a folder: `ca.pem`, and `development`, `production`
/// and `universal` certificates with their keys; plus a self-signed one and one signed without Apple's extensions.
struct TestCertificates {
    let folder: URL
    /// The endpoint's own TLS certificate and key (for localhost).
    let server: (certificate: String, key: String)

    init() async throws {
        folder = try temporaryFolder("gw-certs")
        server = try await makeCertificate(in: folder)
        let recipe = try documentedCertificateRecipe()
        let result = try await runProgram("/bin/bash", ["-e", "-c", "cd '\(folder.path)' && " + recipe])
        try #require(result.status == 0, "the documented recipe failed: \(result.stderr)")
        // Not from the recipe: a certificate signed by the CA without Apple's extensions, and a self-signed one.
        let plain = try await runProgram(
            "/bin/bash",
            [
                "-e", "-c",
                """
                cd '\(folder.path)'
                openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout plain-key.pem -out plain.csr \
                  -subj "/UID=com.example.app/CN=not a push certificate/OU=DEF123GHIJ"
                openssl x509 -req -in plain.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 30 -out plain.pem
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout self-key.pem \
                  -out self.pem -subj "/UID=com.example.app/CN=Apple Push Services: com.example.app/OU=DEF123GHIJ" \
                  -addext 1.2.840.113635.100.6.3.1=ASN1:NULL
                """,
            ])
        try #require(plain.status == 0, "openssl: \(plain.stderr)")
    }

    /// A certificate of the folder and its key: `development`, `production`, `universal`, `plain` or `self`.
    func client(_ name: String) -> (certificate: String, key: String) {
        (folder.appendingPathComponent("\(name).pem").path, folder.appendingPathComponent("\(name)-key.pem").path)
    }

    var authority: String { folder.appendingPathComponent("ca.pem").path }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// The app the documented certificates are for.
let certificateAppID = "com.example.app"

/// Client certificates as Apple issues them, made by the documented openssl recipe, presented by Python's h2 over
/// TLS: BadCertificate, BadCertificateEnvironment (each ending the connection with a GOAWAY), TopicDisallowed,
/// MissingTopic, the certificate's topic by default.
@Suite(
    "APNs endpoint client certificates", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: testPython != nil, "run scripts/test once (it makes a python with h2) or set OPENUN_PYTHON"))
struct ClientCertificateTests {
    /// An endpoint for `environment` asking for client certificates from the recipe's CA, with a token of
    /// `com.example.app` for that environment.
    static func fixture(_ certificates: TestCertificates, environment: PushEnvironment = .development) async throws
        -> (EndpointFixture, token: String)
    {
        let fixture = try await EndpointFixture(environment: environment) {
            $0.tls = .init(
                certificatePath: certificates.server.certificate, keyPath: certificates.server.key,
                clientCertificateAuthorityPath: certificates.authority)
            $0.environment = environment
        }
        _ = try await fixture.system.center(for: certificateAppID)
        let token = try await fixture.system.scheduler.store.registerForRemoteNotifications(
            appID: certificateAppID, at: Date(), bundleDirectory: nil, environment: environment
        ).token
        return (fixture, token.hex)
    }

    @Test("a development certificate: its UID is the default topic, another topic is TopicDisallowed")
    func development() async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        let (fixture, token) = try await Self.fixture(certificates)
        let path = "/3/device/\(token)"
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [
                FrameStep(label: "default-topic", path: path),
                FrameStep(label: "topic", path: path, headers: ["apns-topic": certificateAppID]),
                FrameStep(label: "other", path: path, headers: ["apns-topic": "com.example.other"]),
                FrameStep(label: "after", path: path, headers: ["apns-topic": certificateAppID]),
            ],
            cafile: certificates.server.certificate, certificate: certificates.client("development"))
        #expect(reports["connected"]?.settings == [1_000])
        #expect(reports["default-topic"]?.status == 200, "\(String(describing: reports["default-topic"]))")
        #expect(reports["topic"]?.status == 200)
        #expect(reports["other"]?.status == 400 && reports["other"]?.reason == "TopicDisallowed")
        #expect(reports["after"]?.status == 200 && reports["after"]?.goaway == nil)
        await fixture.endpoint.stop()
    }

    @Test(
        "the other environment's certificate: 403 BadCertificateEnvironment, then GOAWAY with the reason and close",
        arguments: [(PushEnvironment.development, "production"), (.production, "development")])
    func otherEnvironment(endpoint environment: PushEnvironment, certificate: String) async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        let (fixture, token) = try await Self.fixture(certificates, environment: environment)
        let path = "/3/device/\(token)"
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [
                FrameStep(
                    label: "first", path: path, headers: ["apns-topic": certificateAppID], thenWaitForGoAway: true),
                FrameStep(label: "second", path: path, headers: ["apns-topic": certificateAppID]),
            ],
            cafile: certificates.server.certificate, certificate: certificates.client(certificate))
        #expect(reports["first"]?.status == 403 && reports["first"]?.reason == "BadCertificateEnvironment")
        #expect(reports["first"]?.goaway == #"{"reason":"BadCertificateEnvironment"}"#)
        #expect(reports["first"]?.last_stream == 1)
        #expect(reports["second"]?.ended == "closed-before")
        await fixture.endpoint.stop()
    }

    @Test("a universal certificate: good on both endpoints, a request must name one of its topics")
    func universal() async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        for environment in [PushEnvironment.development, .production] {
            let (fixture, token) = try await Self.fixture(certificates, environment: environment)
            let path = "/3/device/\(token)"
            let reports = try await runFrameClient(
                port: fixture.port,
                steps: [
                    FrameStep(label: "no-topic", path: path),
                    FrameStep(label: "topic", path: path, headers: ["apns-topic": certificateAppID]),
                    FrameStep(label: "unlisted", path: path, headers: ["apns-topic": "com.example.other"]),
                ],
                cafile: certificates.server.certificate, certificate: certificates.client("universal"))
            #expect(
                reports["no-topic"]?.status == 400 && reports["no-topic"]?.reason == "MissingTopic", "\(environment)")
            #expect(reports["topic"]?.status == 200, "\(environment)")
            #expect(reports["unlisted"]?.reason == "TopicDisallowed", "\(environment)")
            await fixture.endpoint.stop()
        }
    }

    @Test(
        "a certificate not from the authority, or without Apple's extensions: 403 BadCertificate and GOAWAY",
        arguments: ["self", "plain"])
    func bad(certificate: String) async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        let (fixture, token) = try await Self.fixture(certificates)
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [
                FrameStep(
                    label: "first", path: "/3/device/\(token)", headers: ["apns-topic": certificateAppID],
                    thenWaitForGoAway: true)
            ],
            cafile: certificates.server.certificate, certificate: certificates.client(certificate))
        #expect(reports["first"]?.status == 403 && reports["first"]?.reason == "BadCertificate")
        #expect(reports["first"]?.goaway == #"{"reason":"BadCertificate"}"#)
        await fixture.endpoint.stop()
    }

    @Test("no certificate: the connection is served as before, with provider tokens when they are required")
    func noCertificate() async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        let (fixture, token) = try await Self.fixture(certificates)
        let reports = try await runFrameClient(
            port: fixture.port,
            steps: [FrameStep(label: "ok", path: "/3/device/\(token)", headers: ["apns-topic": certificateAppID])],
            cafile: certificates.server.certificate)
        #expect(reports["ok"]?.status == 200)
        await fixture.endpoint.stop()
    }

    @Test("curl with the documented certificate, as docs/apns-endpoint.md shows it")
    func curlWithCertificate() async throws {
        let certificates = try await TestCertificates()
        defer { certificates.remove() }
        let (fixture, token) = try await Self.fixture(certificates)
        let (certificate, key) = certificates.client("development")
        let response = try await curl([
            "--http2", "--cacert", certificates.server.certificate, "--cert", certificate, "--key", key, "-X", "POST",
            "https://localhost:\(fixture.port)/3/device/\(token)", "-d", #"{"aps":{"alert":"Hi"}}"#,
        ])
        #expect(response.httpVersion == "HTTP/2" && response.status == 200, "\(response)")
        await fixture.endpoint.stop()
    }

    @Test("a client certificate authority that is not a PEM certificate: one clear error at start")
    func badAuthority() async throws {
        let folder = try temporaryFolder("gw-badca")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await makeCertificate(in: folder)
        let bogus = folder.appendingPathComponent("ca.pem").path
        try "not a certificate\n".write(toFile: bogus, atomically: true, encoding: .utf8)
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.tls = .init(
            certificatePath: server.certificate, keyPath: server.key, clientCertificateAuthorityPath: bogus)
        let endpoint = APNsEndpoint(configuration: configuration) { _ in .success(apnsID: "x") }
        await #expect {
            try await endpoint.start()
        } throws: { error in
            (error as? APNsEndpointError)?.code == .tls && "\(error)".contains("client certificate authority")
        }
    }
}
