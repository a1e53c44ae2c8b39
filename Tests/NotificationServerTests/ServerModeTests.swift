import ArgumentParser
import Foundation
import NotificationDaemon
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresTestServer
import PushTestSupport
import TestPrograms
import Testing

@Suite("unotifyd --server", .timeLimit(.minutes(5)))
struct ServerModeTests {
    @Test("database URLs: a socket folder, host:port, and clear refusals")
    func databaseURLs() throws {
        let socket = try PostgresNotificationStore.configuration(
            databaseURL: "postgres://unotify@/unotify?host=/run/postgresql")
        #expect(socket.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(socket.username == "unotify" && socket.database == "unotify" && socket.password == nil)
        let tcp = try PostgresNotificationStore.configuration(
            databaseURL: "postgresql://worker:s%40cret@db.internal:6543/notifications?sslmode=disable")
        #expect(tcp.host == "db.internal" && tcp.port == 6543 && tcp.unixSocketPath == nil)
        #expect(tcp.username == "worker" && tcp.password == "s@cret" && tcp.database == "notifications")
        let refusals: [(String, String)] = [
            ("mysql://u@h/d", "'mysql://u@h/d' is not a postgres:// URL"),
            ("postgres://h/d", "the database URL names no user (postgres://USER@HOST/DATABASE)"),
            ("postgres://u@h/", "the database URL names no database (postgres://USER@HOST/DATABASE)"),
            ("postgres://u@h/d?color=blue", "unknown database URL parameter 'color' (host, port, sslmode)"),
            (
                "postgres://u@/d?host=/tmp&sslmode=require",
                "sslmode 'require' is not supported here (disable; prefer or require over TCP)"
            ),
            (
                "postgres://u@/d",
                "the database URL names no host (postgres://USER@HOST/DATABASE or ?host=/socket/folder)"
            ),
        ]
        for (url, expected) in refusals {
            let error = #expect(throws: PostgresNotificationStore.DatabaseURLError.self) {
                try PostgresNotificationStore.configuration(databaseURL: url)
            }
            #expect(error?.description == expected)
        }
    }

    @Test("option checks: server options need --server, --server needs a database, a key and a team")
    func optionChecks() throws {
        let cases: [([String], String)] = [
            (["--database", "postgres://u@h/d"], "--database needs --server"),
            (["--server"], "--server needs --database postgres://..."),
            (["--server", "--database", "mysql://u@h/d"], "--database: 'mysql://u@h/d' is not a postgres:// URL"),
            (
                ["--server", "--database", "postgres://u@h/d"],
                "--server needs --provider-key AuthKey_<KEYID>.p8 and --provider-team-id"
            ),
            (
                [
                    "--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T",
                    "--provider-production-server", "nowhere",
                ], "--provider-production-server takes host:port, not 'nowhere'"
            ),
            (["--api-token-file", "t"], "--api-token-file needs --server"),
            (["--api-address", "127.0.0.1:3000"], "--api-address needs --server"),
            (
                ["--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T"],
                "--server needs --api-token-file FILE (the API's bearer token), or --api-address off"
            ),
            (
                [
                    "--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T",
                    "--api-token-file", "t", "--api-address", "0.0.0.0:2199",
                ], "--api-address 0.0.0.0:2199 is not a loopback address: add --api-allow-remote"
            ),
            (["--claim-lease", "5"], "--claim-lease needs --server"),
            (
                [
                    "--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T",
                    "--api-address", "off", "--claim-lease", "0",
                ], "--claim-lease takes a number of seconds above 0 and at most 86400, not 0.0"
            ),
            (["--database-connection-wait", "5"], "--database-connection-wait needs --server"),
            (
                [
                    "--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T",
                    "--api-address", "off", "--database-call-deadline", "0",
                ], "--database-call-deadline takes a number of seconds above 0 and at most 3600, not 0.0"
            ),
            (
                [
                    "--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T",
                    "--api-address", "off", "--database-connection-wait", "nan",
                ], "--database-connection-wait takes a number of seconds above 0 and at most 3600, not nan"
            ),
        ]
        for (arguments, expected) in cases {
            let error = try #require(ValidationErrorProbe.error(arguments), "\(arguments) passed")
            #expect(DaemonOptions.message(for: error) == expected, "\(arguments)")
        }
        for api in [
            ["--api-address", "off"], ["--api-token-file", "t"],
            ["--api-token-file", "t", "--api-address", "0.0.0.0:1", "--api-allow-remote"],
        ] {
            let options = try DaemonOptions.parse(
                ["--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T"]
                    + api)
            #expect(options.isServerMode)
        }
    }

    @Test(
        "an API token file that cannot be read, holds a short or spaced token, or a bad line of named tokens, is a configuration error"
    )
    func tokenFileErrors() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let cases: [(String?, String)] = [
            (nil, "cannot be read"), ("short\n", "at least 16 characters"),
            ("two words of a long token\n", "at least 16 characters"),
            ("ci 0123456789abcdef\nci fedcba9876543210\n", "line 2: the name 'ci' is already used on line 1"),
        ]
        for (contents, expected) in cases {
            let file = side.folder.appendingPathComponent("token-\(expected.count)-\(contents?.count ?? 0)")
            if let contents { try Data(contents.utf8).write(to: file) }
            let options = try DaemonOptions.parse([
                "--server", "--database", "postgres://u@h/d", "--provider-key", side.keyPath, "--provider-team-id",
                DeviceSide.teamID, "--api-token-file", file.path,
            ])
            let error = #expect(throws: DaemonError.self) { try options.makeServer() }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
            #expect(error?.message.hasPrefix("--api-token-file \(file.path): ") == true, "\(error?.message ?? "")")
        }
    }

    @Test("unotifyd --server's worker and API, from their options: a device and a request sent over HTTP are delivered")
    func workerFromOptions() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let server = try await PostgresTestServer.shared()
        let database = try await server.makeDatabase()
        let url = "postgres://\(server.user)@/\(database)?host=\(server.socketDirectory)"
        let token = "a-token-of-the-backend-0123456789"
        let tokenFile = side.folder.appendingPathComponent("api.token")
        try Data((token + "\n").utf8).write(to: tokenFile)
        let arguments = [
            "--server", "--database", url, "--provider-key", side.keyPath, "--provider-team-id", DeviceSide.teamID,
            "--provider-development-server", "127.0.0.1:\(side.port)",
            "--provider-production-server", "127.0.0.1:\(side.port)", "--provider-trust-roots", side.certificate,
            "--api-address", "127.0.0.1:0", "--api-token-file", tokenFile.path,
        ]
        let options = try DaemonOptions.parse(arguments)
        var composed = try options.makeServer()
        // The engine's lease unless --claim-lease (hidden) says otherwise.
        #expect(composed.claimLease == EngineConfiguration().claimLease)
        #expect(try DaemonOptions.parse(arguments + ["--claim-lease", "7.5"]).makeServer().claimLease == 7.5)
        // The store's waits: 15 s for a connection and 120 s per call unless the options say otherwise.
        #expect(composed.store.connectionWait == .seconds(15) && composed.store.callDeadline == .seconds(120))
        let waits = try DaemonOptions.parse(
            arguments + ["--database-connection-wait", "2.5", "--database-call-deadline", "30"]
        ).makeServer().store
        #expect(waits.connectionWait == .milliseconds(2_500) && waits.callDeadline == .seconds(30))
        let listening = AsyncStream.makeStream(of: String.self)
        composed.onAPIListening = { url in listening.continuation.yield(url) }
        let worker = Task { [composed] in try await composed.run() }
        var urls = listening.stream.makeAsyncIterator()
        let base = try #require(await urls.next())
        /// curl with the token; returns the HTTP status it printed last.
        func curl(_ method: String, _ path: String, _ json: String? = nil, token: String = token) async throws -> String
        {
            var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, base + path]
            arguments += ["-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json"]
            if let json { arguments += ["--data-binary", json] }
            let result = try await runProgram("/usr/bin/curl", arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let phone = registration("phone", zone: "Europe/Paris")
        #expect(try await curl("GET", "v1/devices/phone", token: "wrong-token-000000") == "401")
        let device =
            #"{"token":"\#(phone.token)","topic":"com.example.app","environment":"production","timeZone":"Europe/Paris"}"#
        #expect(try await curl("PUT", "v1/devices/phone", device) == "200")
        // No trigger: due at once. 201 while it is still pending, 202 when the worker delivered it first.
        let scheduled = try await curl("POST", "v1/devices/phone/requests", #"{"identifier":"hello","title":"hello"}"#)
        #expect(["201", "202"].contains(scheduled))
        // The backend's side: its own store instance and engine (whose loop does not run), on the same database.
        try await PostgresNotificationStore.withStore(
            configuration: try PostgresNotificationStore.configuration(databaseURL: url)
        ) { store in
            let stored = try await store.device(id: "phone")
            #expect(stored?.environment == .production)
            #expect(await eventually(within: 120) { side.received.map(\.title) == ["hello"] })
            #expect(side.received.first?.token == phone.token && side.received.first?.topic == "com.example.app")
            let drained = try await eventually { try await store.pendingCount() == 0 }
            #expect(drained)
        }
        worker.cancel()
        try await worker.value
        await side.stop()
    }
}
