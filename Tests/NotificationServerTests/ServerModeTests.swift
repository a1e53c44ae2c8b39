import ArgumentParser
import Foundation
import NotificationDaemon
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresTestServer
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
            ("postgres://u@/d?host=/tmp&sslmode=require", "sslmode 'require' is not supported here (disable; prefer or require over TCP)"),
            ("postgres://u@/d", "the database URL names no host (postgres://USER@HOST/DATABASE or ?host=/socket/folder)"),
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
        ]
        for (arguments, expected) in cases {
            let error = try #require(ValidationErrorProbe.error(arguments), "\(arguments) passed")
            #expect(DaemonOptions.message(for: error) == expected, "\(arguments)")
        }
        let options = try DaemonOptions.parse([
            "--server", "--database", "postgres://u@h/d", "--provider-key", "k.p8", "--provider-team-id", "T",
        ])
        #expect(options.isServerMode)
    }

    @Test("unotifyd --server's worker, from its options, delivers a device's request added through the Swift API")
    func workerFromOptions() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let server = try await PostgresTestServer.shared()
        let database = try await server.makeDatabase()
        let url = "postgres://\(server.user)@/\(database)?host=\(server.socketDirectory)"
        let options = try DaemonOptions.parse([
            "--server", "--database", url, "--provider-key", side.keyPath, "--provider-team-id", DeviceSide.teamID,
            "--provider-development-server", "127.0.0.1:\(side.port)",
            "--provider-production-server", "127.0.0.1:\(side.port)", "--provider-trust-roots", side.certificate,
        ])
        let worker = Task { try await options.makeServer().run() }
        // The backend's side: its own store instance and engine (whose loop does not run), on the same database.
        try await PostgresNotificationStore.withStore(
            configuration: try PostgresNotificationStore.configuration(databaseURL: url)
        ) { store in
            let scheduler = NotificationScheduler(
                store: store, clock: ServerWorker.utcClock, presenter: NoPresenter())
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            var phone = registration("phone", zone: "Europe/Paris")
            phone.environment = .production
            try await devices.register(phone)
            try await devices.schedule(spec("hello", nil), forDevice: "phone")
            #expect(await eventually(within: 120) { side.received.map(\.title) == ["hello"] })
            #expect(side.received.first?.token == phone.token && side.received.first?.topic == "com.example.app")
            #expect(try await eventually { try await store.pendingCount() == 0 })
        }
        worker.cancel()
        try await worker.value
        await side.stop()
    }
}
