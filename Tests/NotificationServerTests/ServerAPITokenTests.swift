import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NotificationServer
import TestPrograms
import Testing

/// `--api-token-file` with one token per client: the file's two forms, the client's name in the context and the
/// logs, and reloading (what SIGHUP does in `unotifyd --server`: ServerProcessTests sends it to a real process).
@Suite("Server API: per-client tokens", .timeLimit(.minutes(5)))
struct ServerAPITokenTests {
    static let backend = "9f1c2e7a5b3d4c6e8f0a1b2c3d4e5f60"
    static let prometheus = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
    static let ci = "ci-token-0123456789abcdef"

    @Test("token files: the one-token form as before, named tokens with comments and blank lines")
    func fileForms() throws {
        let single = try ServerAPITokens(parsing: "  a-token-of-the-backend-0123456789\n\n")
        #expect(single.clients == [ServerAPITokens.defaultClient])
        #expect(single.client(presenting: "a-token-of-the-backend-0123456789") == "default")
        #expect(single.client(presenting: "a-token-of-the-backend-012345678") == nil)
        #expect(single.client(presenting: "a-token-of-the-backend-0123456789x") == nil)
        #expect(single.client(presenting: "") == nil)
        // A one-token file's token may start with `#`, as it always could.
        #expect(try ServerAPITokens(parsing: "#0123456789abcdef\n").client(presenting: "#0123456789abcdef") == "default")

        let named = try ServerAPITokens(
            parsing: """
                # who calls the API of the workers
                backend\t\(Self.backend)

                  prometheus   \(Self.prometheus)\r
                    # an indented comment
                ci.runner_2-b \(Self.ci)
                """)
        #expect(named.clients == ["backend", "prometheus", "ci.runner_2-b"])
        #expect(named.client(presenting: Self.backend) == "backend")
        #expect(named.client(presenting: Self.prometheus) == "prometheus")
        #expect(named.client(presenting: Self.ci) == "ci.runner_2-b")
        let windows = try ServerAPITokens(parsing: "backend \(Self.backend)\r\nci \(Self.ci)\r\n")
        #expect(windows.clients == ["backend", "ci"] && windows.client(presenting: Self.ci) == "ci")
        for wrong in ["backend", Self.backend.uppercased(), Self.backend + " ", String(Self.ci.dropLast()), "#"] {
            #expect(named.client(presenting: wrong) == nil, "\(wrong)")
        }
    }

    @Test("token files refused with the line at fault, and no token in the message", arguments: Self.refusals)
    func refusal(_ text: String, _ expected: String) throws {
        let error = #expect(throws: ServerAPITokens.FileError.self) { try ServerAPITokens(parsing: text) }
        #expect(error?.description == expected)
        for token in [Self.backend, Self.prometheus, "0123456789abcdef"] {
            #expect(error?.description.contains(token) == false)
        }
    }

    static let refusals: [(String, String)] = [
        ("", "holds no token (one token, or lines NAME TOKEN)"),
        ("# nobody yet\n\n   \n", "holds no token (one token, or lines NAME TOKEN)"),
        ("short\n", "must hold one token of at least 16 characters, without spaces, or lines NAME TOKEN"),
        (
            "backend \(backend)\nci short\n",
            "line 2: the token of 'ci' must be at least 16 characters without spaces or control characters"
        ),
        (
            "ci 0123456789\u{7}abcdef\n",
            "line 1: the token of 'ci' must be at least 16 characters without spaces or control characters"
        ),
        ("back/end \(backend)\n", "line 1: the name 'back/end' is not 1 to 64 characters among A-Z a-z 0-9 . _ -"),
        (
            "\(String(repeating: "n", count: 65)) \(backend)\n",
            "line 1: the name '\(String(repeating: "n", count: 65))' is not 1 to 64 characters among A-Z a-z 0-9 . _ -"
        ),
        ("ci \(backend)\n# again\nci \(prometheus)\n", "line 3: the name 'ci' is already used on line 1"),
        ("a \(backend)\n\nb \(backend)\n", "line 3: the token of 'b' is the same as the one on line 1"),
        (
            "backend \(backend) # the backend\n",
            "line 1: expected NAME TOKEN [SCOPES] (a name, a token of at least 16 characters without spaces, and optionally scopes such as read,schedule), found 5 fields"
        ),
        (
            "two words of a long token\n",
            "line 1: expected NAME TOKEN [SCOPES] (a name, a token of at least 16 characters without spaces, and optionally scopes such as read,schedule), found 6 fields"
        ),
        (
            "backend \(backend) #comment\n",
            "line 1: the scopes of 'backend': unknown scope '#comment': scopes are read, schedule, devices, separated by commas"
        ),
        (
            "backend \(backend) read\nci \(ci) read,,schedule\n",
            "line 2: the scopes of 'ci': an empty scope in 'read,,schedule': scopes are read, schedule, devices, separated by commas"
        ),
        (
            "backend \(backend) read,\n",
            "line 1: the scopes of 'backend': an empty scope in 'read,': scopes are read, schedule, devices, separated by commas"
        ),
        (
            "# the backend's token\n\(backend)\n",
            "line 2: a token without a name: write NAME TOKEN (a file holding only one token is the one-token form)"
        ),
    ]

    @Test(
        "a named token opens the API as its client (in the logs, never the token); after a reload the removed one gets 401; a bad or missing file on reload keeps the tokens in use"
    )
    func reload() async throws {
        let folder = try temporaryFolder("api-tokens")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("api.tokens").path
        try "# clients\nbackend \(Self.backend)\nci \(Self.ci)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let credentials = try ServerAPICredentials(file: file)
        #expect(credentials.tokens.clients == ["backend", "ci"])
        let log = LogRecords()
        try await withDeviceScheduler { _, devices in
            let api = ServerAPI(devices: devices, credentials: credentials, logger: log.logger)
            let application = Application(router: api.router(), logger: log.logger)
            try await application.test(.router) { client in
                try await Self.checkReloads(client, credentials: credentials, file: file)
            }
        }
        // Each request of a client is logged with its name (at debug level), never with a token.
        let requests = log.entries.filter { $0.message == "server API request" }
        #expect(requests.map { $0.metadata["client"] ?? "" } == [
            "backend", "ci", "ci", "backend", "prometheus", "prometheus", "backend", "default",
        ])
        #expect(requests.allSatisfy { $0.metadata["route"] == "GET /v1/devices" })
        for entry in log.entries {
            #expect(!entry.text.contains(Self.backend) && !entry.text.contains(Self.ci), "\(entry.text)")
        }
    }

    /// The steps of ``reload()``, out of its closure (the compiler's SendNonSendable pass chokes on big closures).
    static func checkReloads(
        _ client: any TestClientProtocol, credentials: ServerAPICredentials, file: String
    ) async throws {
        func status(_ token: String) async throws -> HTTPResponse.Status {
            try await client.execute(
                uri: "/v1/devices", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil
            ).status
        }
        #expect(try await status(Self.backend) == .ok)
        #expect(try await status(Self.ci) == .ok)
        #expect(try await status(Self.prometheus) == .unauthorized)
        // Revoking ci: its line deleted, then a reload (SIGHUP). Until the reload, the tokens read before stay.
        try "backend \(Self.backend)\nprometheus \(Self.prometheus)\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(try await status(Self.ci) == .ok)
        #expect(try credentials.reload().clients == ["backend", "prometheus"])
        #expect(try await status(Self.ci) == .unauthorized)
        #expect(try await status(Self.backend) == .ok)
        #expect(try await status(Self.prometheus) == .ok)
        // A bad file: refused with its line, the tokens in use stay.
        try "backend \(Self.backend)\nci short\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = #expect(throws: ServerAPITokens.FileError.self) { try credentials.reload() }
        #expect(bad?.line == 2)
        #expect(credentials.tokens.clients == ["backend", "prometheus"])
        #expect(try await status(Self.prometheus) == .ok)
        #expect(try await status(Self.ci) == .unauthorized)
        // A file that went away: the same.
        try FileManager.default.removeItem(atPath: file)
        let missing = #expect(throws: ServerAPITokens.FileError.self) { try credentials.reload() }
        #expect(missing?.description.hasPrefix("cannot be read") == true)
        #expect(try await status(Self.backend) == .ok)
        // Back to the one-token form: its client is `default`.
        try "\(Self.ci)\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try credentials.reload().clients == [ServerAPITokens.defaultClient])
        #expect(try await status(Self.ci) == .ok)
        #expect(try await status(Self.backend) == .unauthorized)
    }
}
