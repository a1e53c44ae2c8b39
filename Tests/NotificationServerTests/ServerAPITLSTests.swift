import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import NotificationDaemon
import NotificationServer
import TestPrograms
import Testing

/// The server API over TLS (`--api-tls-certificate`, `--api-tls-key`), served for real on a port the system chose and
/// called with AsyncHTTPClient trusting the test certificate only.
@Suite("Server API over TLS", .timeLimit(.minutes(5)))
struct ServerAPITLSTests {
    static let token = "tls-test-token-0123456789"

    /// Serves the API with `configuration` over a fresh database and runs `body` with its base URL.
    static func serving(
        _ configuration: ServerAPIConfiguration, log: LogRecords = LogRecords(),
        certificate: ServerAPICertificate? = nil, _ body: @escaping @Sendable (String) async throws -> Void
    ) async throws {
        try await withDeviceScheduler { _, devices in
            let api = ServerAPI(
                devices: devices, credentials: ServerAPICredentials(tokens: ServerAPITokens(token: Self.token)),
                configuration: configuration, certificate: certificate, logger: log.logger)
            let (urls, announce) = AsyncStream<String>.makeStream()
            let serving = Task { try await api.run { announce.yield($0) } }
            var iterator = urls.makeAsyncIterator()
            guard let base = await iterator.next() else {
                serving.cancel()
                _ = try await serving.value
                return
            }
            do { try await body(base) } catch {
                serving.cancel()
                _ = try? await serving.value
                throw error
            }
            serving.cancel()
            try await serving.value
        }
    }

    /// `GET path` with the token; the status and the body as text.
    static func get(_ client: HTTPClient, _ url: String) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    @Test(
        "with a certificate and key the API serves HTTPS: a client trusting the certificate gets answers; one trusting only the system's roots, or speaking plain HTTP, fails cleanly and the API goes on serving"
    )
    func https() async throws {
        let folder = try temporaryFolder("api-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let configuration = ServerAPIConfiguration(
            host: "127.0.0.1", port: 0, tls: ServerAPITLS(certificatePath: certificate, keyPath: key))
        try await Self.serving(configuration) { base in
            #expect(base.hasPrefix("https://127.0.0.1:"))
            try await Self.checkClients(base: base, certificate: certificate)
        }
    }

    /// The clients of ``https()``, out of its closure (the compiler's SendNonSendable pass chokes on big closures).
    static func checkClients(base: String, certificate: String) async throws {
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .file(certificate)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: trusting))
        // AsyncHTTPClient tries a failing connection again until its connect timeout and then reports the last
        // connection's error; when not one handshake has failed by then (2 s was too short under the whole suite),
        // it reports `connectTimeout` instead. 10 s leaves the first handshake time to fail.
        let systemRoots = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(10))))
        do {
            let (status, body) = try await get(client, base + "v1/devices")
            #expect(status == 200 && body.contains(#""devices""#), "\(status) \(body)")
            var unauthorized = HTTPClientRequest(url: base + "v1/devices")
            unauthorized.headers.add(name: "Authorization", value: "Bearer wrong")
            #expect(try await client.execute(unauthorized, timeout: .seconds(30)).status == .unauthorized)
            // The certificate is not among the system's roots: the handshake fails, no request is answered.
            let untrusted = await #expect(throws: (any Error).self) {
                _ = try await get(systemRoots, base + "v1/devices")
            }
            #expect("\(untrusted.map { "\($0)" } ?? "")".contains("CERTIFICATE_VERIFY_FAILED"), "\(untrusted.map { "\($0)" } ?? "")")
            // Plain HTTP to the TLS port: an error (the server closes the connection), not an answer nor a hang.
            let plainURL = base.replacingOccurrences(of: "https://", with: "http://")
            let plain = await #expect(throws: (any Error).self) { _ = try await get(systemRoots, plainURL + "v1/devices") }
            // The server closes the connection at the first bytes that are not TLS (its alert, if one came first,
            // is not HTTP either).
            #expect(
                plain as? HTTPClientError == .remoteConnectionClosed || plain is HTTPParserError,
                "\(plain.map { "\($0)" } ?? "")")
            // The API goes on serving.
            #expect(try await get(client, base + "v1/status").0 == 200)
        } catch {
            try await client.shutdown()
            try await systemRoots.shutdown()
            throw error
        }
        try await client.shutdown()
        try await systemRoots.shutdown()
    }

    @Test(
        "a renewed certificate is used for new connections once reloaded, without a restart; a pair that cannot be used keeps the one in use"
    )
    func certificateReload() async throws {
        let folder = try temporaryFolder("api-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        var pairs: [(certificate: String, key: String)] = []
        for name in ["first", "renewed"] {
            let sub = folder.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            pairs.append(try await makeCertificate(in: sub))
        }
        // The files the API is given, overwritten as a renewal (certbot, an ACME client) would.
        let served = ServerAPITLS(
            certificatePath: folder.appendingPathComponent("api.pem").path,
            keyPath: folder.appendingPathComponent("api.key").path)
        try Self.install(pairs[0], as: served)
        let certificate = try ServerAPICertificate(served)
        let configuration = ServerAPIConfiguration(host: "127.0.0.1", port: 0, tls: served)
        let (first, renewed) = (pairs[0], pairs[1])
        try await Self.serving(configuration, certificate: certificate) { base in
            try await Self.checkReload(base: base, certificate: certificate, served: served, first: first, renewed: renewed)
        }
    }

    /// Copies a certificate and key over the files the API serves.
    static func install(_ pair: (certificate: String, key: String), as served: ServerAPITLS) throws {
        for (from, to) in [(pair.certificate, served.certificatePath), (pair.key, served.keyPath)] {
            try? FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
    }

    /// `GET /v1/status` over a new connection of a new client that trusts only `root`: the status, or the error.
    static func status(_ base: String, trusting root: String) async -> Result<Int, any Error> {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(root)
        // A failing handshake is tried again until the connect timeout (see ``checkClients(base:certificate:)``).
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(tlsConfiguration: tls, timeout: .init(connect: .seconds(5))))
        let result: Result<Int, any Error>
        do { result = .success(try await get(client, base + "v1/status").0) } catch { result = .failure(error) }
        try? await client.shutdown()
        return result
    }

    /// The steps of ``certificateReload()``, out of its closure.
    static func checkReload(
        base: String, certificate: ServerAPICertificate, served: ServerAPITLS,
        first: (certificate: String, key: String), renewed: (certificate: String, key: String)
    ) async throws {
        #expect(try await status(base, trusting: first.certificate).get() == 200)
        let renewedChain = try NIOSSLCertificate.fromPEMFile(renewed.certificate)
        // Renewed on disk but not reloaded yet: still the first certificate.
        try install(renewed, as: served)
        #expect(try await status(base, trusting: first.certificate).get() == 200)
        try certificate.reload()
        #expect(certificate.certificateChain == renewedChain)
        #expect(try await status(base, trusting: renewed.certificate).get() == 200)
        // A client that trusts only the first certificate no longer gets through: the server shows the renewed one.
        if case .success(let code) = await status(base, trusting: first.certificate) {
            Issue.record("a client trusting only the first certificate got \(code)")
        }
        // Pairs that cannot be used: refused with the reason, and the renewed pair stays in use.
        try install((renewed.certificate, first.key), as: served)
        let mismatch = #expect(throws: ServerAPIError.self) { try certificate.reload() }
        #expect(mismatch?.reason == "BadTLSConfiguration")
        #expect(mismatch?.detail.contains("is it the certificate's key?") == true, "\(mismatch?.detail ?? "")")
        try FileManager.default.removeItem(atPath: served.keyPath)
        let missing = #expect(throws: ServerAPIError.self) { try certificate.reload() }
        #expect(missing?.detail.contains("cannot read the private key") == true, "\(missing?.detail ?? "")")
        #expect(certificate.certificateChain == renewedChain)
        #expect(try await status(base, trusting: renewed.certificate).get() == 200)
    }

    @Test("beyond loopback without TLS the API warns in the log; with TLS it does not; a refused certificate stops it")
    func warningsAndRefusals() async throws {
        let folder = try temporaryFolder("api-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let warning = "the server API listens beyond loopback without TLS"
        let plain = LogRecords()
        try await Self.serving(ServerAPIConfiguration(host: "0.0.0.0", port: 0, allowsRemote: true), log: plain) {
            #expect($0.hasPrefix("http://0.0.0.0:"))
        }
        #expect(plain.entries.contains { $0.level == .warning && $0.message.hasPrefix(warning) })
        let secure = LogRecords()
        let tls = ServerAPITLS(certificatePath: certificate, keyPath: key)
        try await Self.serving(
            ServerAPIConfiguration(host: "0.0.0.0", port: 0, allowsRemote: true, tls: tls), log: secure
        ) { #expect($0.hasPrefix("https://0.0.0.0:")) }
        #expect(!secure.entries.contains { $0.message.hasPrefix(warning) })
        // Files that cannot be used: a clear error before anything listens.
        let other = folder.appendingPathComponent("other", isDirectory: true)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let (otherCertificate, _) = try await makeCertificate(in: other)
        let refusals: [(ServerAPITLS, String)] = [
            (ServerAPITLS(certificatePath: folder.path + "/none.pem", keyPath: key), "cannot read the certificate"),
            (ServerAPITLS(certificatePath: key, keyPath: key), "cannot read the certificate"),
            (ServerAPITLS(certificatePath: certificate, keyPath: certificate), "cannot read the private key"),
            (ServerAPITLS(certificatePath: otherCertificate, keyPath: key), "is it the certificate's key?"),
        ]
        for (tls, expected) in refusals {
            let error = #expect(throws: ServerAPIError.self) { try tls.serverConfiguration() }
            #expect(error?.reason == "BadTLSConfiguration")
            #expect(error?.detail.contains(expected) == true, "\(error?.detail ?? "")")
        }
    }

    @Test("unotifyd --server: --api-tls-certificate and --api-tls-key go together, and files that cannot be used stop it at start")
    func options() async throws {
        let folder = try temporaryFolder("api-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try await makeCertificate(in: folder)
        let providerKey = try await makeAuthKey(keyID: "ABC123DEFG", in: folder)
        let base = [
            "--server", "--database", "postgres://u@h/d", "--provider-key", providerKey, "--provider-team-id",
            "DEF123GHIJ",
        ]
        let cases: [([String], String)] = [
            (["--api-tls-certificate", "c.pem"], "--api-tls-certificate needs --server"),
            (
                base + ["--api-token-file", "t", "--api-tls-certificate", "c.pem"],
                "--api-tls-certificate needs --api-tls-key (the certificate's private key)"
            ),
            (base + ["--api-token-file", "t", "--api-tls-key", "k.pem"], "--api-tls-key needs --api-tls-certificate"),
            (
                base + ["--api-address", "off", "--api-tls-certificate", "c.pem", "--api-tls-key", "k.pem"],
                "--api-tls-certificate and --api-tls-key need the API: not with --api-address off"
            ),
            // TLS does not stand for --api-allow-remote.
            (
                base + [
                    "--api-token-file", "t", "--api-address", "0.0.0.0:2199", "--api-tls-certificate", "c.pem",
                    "--api-tls-key", "k.pem",
                ], "--api-address 0.0.0.0:2199 is not a loopback address: add --api-allow-remote"
            ),
        ]
        for (arguments, expected) in cases {
            let error = try #require(ValidationErrorProbe.error(arguments), "\(arguments) passed")
            #expect(DaemonOptions.message(for: error) == expected, "\(arguments)")
        }
        let tokenFile = folder.appendingPathComponent("api.token").path
        try "tls-test-token-0123456789".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let api = base + ["--api-token-file", tokenFile]
        let good = try DaemonOptions.parse(api + ["--api-tls-certificate", certificate, "--api-tls-key", key])
        #expect(try good.makeServer().api?.configuration.tls == ServerAPITLS(certificatePath: certificate, keyPath: key))
        let missing = try DaemonOptions.parse(
            api + ["--api-tls-certificate", folder.path + "/none.pem", "--api-tls-key", key])
        let error = #expect(throws: DaemonError.self) { try missing.makeServer() }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.hasPrefix("--api-tls-certificate / --api-tls-key: cannot read the certificate") == true)
    }
}
