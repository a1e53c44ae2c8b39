import Foundation
import Logging
import NotificationStorePostgres
import PostgresNIO
import PostgresTestServer
import PushTestSupport
import Testing
import TestPrograms

/// A worker of the previous schema version keeps working while a worker of this version migrates the database under
/// it, and the two serve one cluster side by side (docs/server-mode.md, "Upgrading the schema").
///
/// It needs an `unotifyd` built from an older commit, named by `UNOTIFY_OLD_UNOTIFYD`: `scripts/rolling-upgrade-check`
/// builds one (from the commit before the newest schema step, by default) and runs this suite with it. Without the
/// variable the suite is skipped: the suite has one version of the code, and a second build takes minutes.
@Suite(
    "Rolling upgrade: an old worker and a new one on one database",
    .enabled(if: ProcessInfo.processInfo.environment["UNOTIFY_OLD_UNOTIFYD"] != nil),
    .timeLimit(.minutes(5)))
struct RollingUpgradeTests {
    /// A started worker: its process, its API's base address and its log.
    struct Worker {
        var process: TestProcess
        var api: String
        var log: URL
    }

    @Test("the old worker schedules and delivers before, during and after the new one migrates; the new one serves its requests too")
    func sideBySide() async throws {
        let old = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["UNOTIFY_OLD_UNOTIFYD"]))
        let new = try ServerProcessTests().unotifyd()
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let server = try await PostgresTestServer.shared()
        let database = try await server.makeDatabase()
        let url = "postgres://\(server.user)@/\(database)?host=\(server.socketDirectory)"
        let tokenFile = side.folder.appendingPathComponent("api.token").path
        try "rolling-upgrade-token-0123456789".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        func cli(_ worker: Worker, _ arguments: [String]) async throws -> ProcessOutput {
            try await runProgram(
                try ServerProcessTests().unotify(),
                ["server"] + arguments.prefix(1) + ["--url", worker.api, "--token-file", tokenFile] + arguments.dropFirst())
        }
        func schedule(_ worker: Worker, _ id: String, device: String) async throws {
            let answer = try await cli(worker, ["schedule", "--device", device, "--id", id, "--title", id, "--in", "1"])
            #expect(answer.status == 0, "\(id): \(answer.stdout) \(answer.stderr)")
        }
        func arrived(_ titles: Set<String>) async -> Bool {
            await eventually(within: 60) { titles.isSubset(of: Set(side.received.filter { $0.status == 200 }.map(\.title))) }
        }

        // The old worker alone creates the schema it knows.
        let a = try await start(old, name: "old", url: url, tokenFile: tokenFile, side: side)
        defer { if a.process.isRunning { kill(a.process.processIdentifier, SIGKILL) } }
        let oldVersion = try await Self.schemaVersion(url)
        for (id, zone) in [("paris", "Europe/Paris"), ("tokyo", "Asia/Tokyo")] {
            let token = String(repeating: id == "paris" ? "ab" : "cd", count: 32)
            let registered = try await cli(
                a, ["register", id, "--token", token, "--topic", "com.example.app", "--environment", "development", "--time-zone", zone])
            #expect(registered.status == 0, "\(registered.stderr)")
        }
        try await schedule(a, "old-before", device: "paris")
        #expect(await arrived(["old-before"]), "\(Self.text(a.log))")

        // The new worker migrates the database while the old one runs.
        let b = try await start(new, name: "new", url: url, tokenFile: tokenFile, side: side)
        defer { if b.process.isRunning { kill(b.process.processIdentifier, SIGKILL) } }
        let newVersion = try await Self.schemaVersion(url)
        #expect(newVersion > oldVersion, "the old build has the newest schema already: nothing to test")
        #expect(a.process.isRunning)
        try await schedule(a, "old-during", device: "tokyo")
        try await schedule(b, "new-during", device: "paris")
        let oldPush = try await cli(a, ["push", "--device", "paris", "--title", "old-push"])
        #expect(oldPush.status == 0, "\(oldPush.stderr)")
        let newPush = try await cli(b, ["push", "--device", "tokyo", "--title", "new-push", "--content-available"])
        #expect(newPush.status == 0, "\(newPush.stderr)")
        #expect(await arrived(["old-during", "new-during", "old-push", "new-push"]), "\(Self.text(a.log))\n\(Self.text(b.log))")
        for worker in [a, b] {
            let status = try await cli(worker, ["status"])
            #expect(status.status == 0, "\(status.stderr)")
        }

        // The old worker alone again, on the migrated schema: it still schedules, claims and records.
        #expect(await ServerProcessTests().stop(b.process) == 0, "\(Self.text(b.log))")
        try await schedule(a, "old-after", device: "tokyo")
        #expect(await arrived(["old-after"]), "\(Self.text(a.log))")
        let listed = try await cli(a, ["list", "tokyo"])
        #expect(listed.status == 0 && !listed.stdout.contains("old-after"), "\(listed.stdout)")
        #expect(await ServerProcessTests().stop(a.process) == 0, "\(Self.text(a.log))")
        // Neither logged an error (a statement the migrated schema refused would be one).
        for worker in [a, b] {
            let errors = Self.text(worker.log).split(separator: "\n").filter { $0.contains(" error ") || $0.contains("[error]") }
            #expect(errors.isEmpty, "\(errors)")
        }
        // Started again once the new one has migrated, the old worker refuses the database (status 73) and says why.
        let refused = try await runProgram(
            old.path, side.workerArguments(databaseURL: url) + ["--api-address", "off"])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("schema version \(newVersion)"), "\(refused.stderr)")
        let received = side.received
        #expect(received.allSatisfy { $0.status == 200 })
        #expect(Dictionary(grouping: received, by: \.title).values.allSatisfy { $0.count == 1 }, "a fire arrived twice")
        print("RollingUpgradeTests: schema \(oldVersion) -> \(newVersion); \(received.count) arrivals: \(received.map(\.title).sorted())")
        await side.stop()
    }

    /// Starts `binary` as a server-mode worker with its API on a port the system chose, and waits until it listens.
    func start(_ binary: URL, name: String, url: String, tokenFile: String, side: DeviceSide) async throws -> Worker {
        let log = side.folder.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = TestProcess()
        process.executableURL = binary
        process.arguments = side.workerArguments(databaseURL: url) + [
            "--log-level", "info", "--api-address", "127.0.0.1:0", "--api-token-file", tokenFile,
        ]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var base: String?
        _ = await eventually(within: 60) {
            guard let line = Self.text(log).split(separator: "\n").first(where: { $0.contains("server API listening") }),
                let range = line.range(of: "https?://[^ ]*/", options: .regularExpression)
            else { return false }
            base = String(line[range])
            return true
        }
        if base == nil { kill(process.processIdentifier, SIGKILL) }
        return Worker(process: process, api: try #require(base, "\(name): no API address in its log: \(Self.text(log))"), log: log)
    }

    static func text(_ log: URL) -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The database's schema version (the newest applied step).
    static func schemaVersion(_ url: String) async throws -> Int {
        let configuration = try PostgresNotificationStore.configuration(databaseURL: url)
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "RollingUpgradeTests"))
        return try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            var version = 0
            for try await value in try await client.query("SELECT COALESCE(MAX(version), 0)::integer FROM schema_version")
                .decode(Int.self)
            {
                version = value
            }
            return version
        }
    }
}
