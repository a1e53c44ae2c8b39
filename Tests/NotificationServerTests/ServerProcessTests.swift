import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresTestServer
import PushTestSupport
import TestPrograms
import Testing

@Suite("unotifyd --server processes", .timeLimit(.minutes(5)))
struct ServerProcessTests {
    /// The built `unotifyd`, beside the test bundle or in .build/debug.
    func unotifyd() throws -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("unotifyd")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let debug = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/unotifyd")
        try #require(FileManager.default.isExecutableFile(atPath: debug.path), "build unotifyd first")
        return debug
    }

    @Test("two unotifyd --server processes on one database deliver every fire once, and stop cleanly on SIGTERM")
    func twoProcesses() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let server = try await PostgresTestServer.shared()
        let database = try await server.makeDatabase()
        let url = "postgres://\(server.user)@/\(database)?host=\(server.socketDirectory)"
        var workers: [TestProcess] = []
        for index in 0..<2 {
            let process = TestProcess()
            process.executableURL = try unotifyd()
            process.arguments = side.workerArguments(databaseURL: url) + [
                "--log-level", "warning", "--api-address", "off",
            ]
            let log = side.folder.appendingPathComponent("worker-\(index).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            workers.append(process)
        }
        defer { for worker in workers where worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }

        let devices = (0..<10).map { registration("p\($0)", zone: $0 % 2 == 0 ? "Europe/Paris" : "Asia/Tokyo") }
        try await PostgresNotificationStore.withStore(
            configuration: try PostgresNotificationStore.configuration(databaseURL: url)
        ) { store in
            let api = DeviceScheduler(
                store: store,
                scheduler: NotificationScheduler(store: store, clock: ServerWorker.utcClock, presenter: NoPresenter()))
            for device in devices { try await api.register(device) }
            for device in devices {
                for second in 2...4 {
                    try await api.schedule(
                        spec("\(device.id)-\(second)", .timeInterval(Double(second), repeats: false)),
                        forDevice: device.id)
                }
            }
            #expect(await eventually(within: 120) { side.received.count >= devices.count * 3 })
            #expect(try await eventually(within: 120) { try await store.pendingCount() == 0 })
            let history = try await store.history(appID: nil, limit: 1_000)
            #expect(history.filter { $0.outcome == .delivered }.count == devices.count * 3)
        }
        let received = side.received
        #expect(received.count == devices.count * 3)
        #expect(Set(received.map(\.apnsID)).count == received.count, "a fire arrived twice")
        #expect(Set(received.map(\.title)) == Set(devices.flatMap { device in (2...4).map { "\(device.id)-\($0)" } }))
        let started = workers
        #expect(started.allSatisfy { $0.isRunning })
        for worker in started { kill(worker.processIdentifier, SIGTERM) }
        for worker in started { await worker.exited() }
        let statuses = started.map(\.terminationStatus)
        let logs = (0..<2).map { index in
            (try? String(contentsOf: side.folder.appendingPathComponent("worker-\(index).log"), encoding: .utf8)) ?? ""
        }
        #expect(statuses == [0, 0], "\(logs)")
        await side.stop()
    }

    /// The built `unotify`, beside `unotifyd`.
    func unotify() throws -> String {
        try unotifyd().deletingLastPathComponent().appendingPathComponent("unotify").path
    }

    /// A running `unotifyd --server` with its API on a port the system chose, on a fresh database.
    struct APIWorker {
        var process: TestProcess
        /// The API's base address, `http://127.0.0.1:PORT/`.
        var api: String
        var tokenFile: String
        /// The database's URL.
        var databaseURL: String
    }

    /// Starts `unotifyd --server` with its API on a fresh database, sending to `side`, and waits until the API
    /// listens.
    func startAPIWorker(side: DeviceSide, arguments extra: [String] = []) async throws -> APIWorker {
        let server = try await PostgresTestServer.shared()
        let database = try await server.makeDatabase()
        let url = "postgres://\(server.user)@/\(database)?host=\(server.socketDirectory)"
        let tokenFile = side.folder.appendingPathComponent("api.token").path
        try "cli-test-token-0123456789".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let log = side.folder.appendingPathComponent("worker.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let worker = TestProcess()
        worker.executableURL = try unotifyd()
        worker.arguments = side.workerArguments(databaseURL: url) + [
            "--log-level", "info", "--api-address", "127.0.0.1:0", "--api-token-file", tokenFile,
        ] + extra
        worker.standardError = try FileHandle(forWritingTo: log)
        worker.standardOutput = FileHandle.nullDevice
        try worker.run()
        // The worker logs the API's address once it listens (the port was chosen by the system).
        var base: String?
        _ = await eventually(within: 60) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").first(where: { $0.contains("server API listening") }),
                let range = line.range(of: "https?://[^ ]*/", options: .regularExpression)
            else { return false }
            base = String(line[range])
            return true
        }
        if base == nil { kill(worker.processIdentifier, SIGKILL) }
        let api = try #require(base, "no API address in the worker's log")
        return APIWorker(process: worker, api: api, tokenFile: tokenFile, databaseURL: url)
    }

    /// Runs `unotify server SUBCOMMAND --url ... --token-file ... REST`.
    func cli(_ worker: APIWorker, _ arguments: [String]) async throws -> ProcessOutput {
        try await runProgram(
            try unotify(),
            ["server"] + arguments.prefix(1) + ["--url", worker.api, "--token-file", worker.tokenFile]
                + arguments.dropFirst())
    }

    /// Stops the worker with SIGTERM and returns its exit status.
    func stop(_ worker: TestProcess) async -> Int32 {
        kill(worker.processIdentifier, SIGTERM)
        await worker.exited()
        return worker.terminationStatus
    }

    @Test("unotify server drives a real worker's API: register, schedule, list, cancel, status with APNs answers, bad input")
    func serverCommands() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let started = try await startAPIWorker(side: side)
        let worker = started.process
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        let api = started.api
        let tokenFile = started.tokenFile
        func cli(_ arguments: [String]) async throws -> ProcessOutput { try await self.cli(started, arguments) }
        let gone = registration("gone", zone: "Asia/Tokyo")
        side.answer(.unregistered, token: gone.token)
        for device in [registration("paris", zone: "Europe/Paris"), gone] {
            let registered = try await cli([
                "register", device.id, "--token", device.token.description, "--topic", device.topic,
                "--environment", "development", "--time-zone", device.timeZoneIdentifier,
            ])
            #expect(registered.status == 0, "\(registered.stderr)")
        }
        let devices = try await cli(["devices"])
        #expect(devices.stdout.contains("paris  development  Europe/Paris") && devices.stdout.contains("gone"))

        // Scheduled by options: a daily 9:00 (floating: the device's zone) and one in 2 seconds for each device.
        let daily = try await cli(["schedule", "--device", "paris", "--id", "morning", "--title", "Bonjour", "--hour", "9", "--repeats"])
        #expect(daily.status == 0, "\(daily.stderr)")
        #expect(daily.stdout.contains("scheduled morning for paris, next fire"))
        let soon = try await cli(["schedule", "--device", "paris", "--device", "gone", "--id", "soon", "--title", "Now", "--in", "2"])
        #expect(soon.stdout.contains("scheduled soon for 2 of 2 devices"), "\(soon.stdout) \(soon.stderr)")
        let listed = try await cli(["list", "paris"])
        #expect(listed.stdout.contains("morning") && listed.stdout.contains("Bonjour"))

        // Delivered: one 200 (paris) and one 410 (gone, now inactive); the status says so.
        #expect(await eventually(within: 60) { side.received.count >= 2 })
        // The worker records an answer just after the endpoint saw the request: ask until both are counted.
        var figures: [String: Any] = [:]
        _ = await eventually(within: 30) {
            guard let status = try? await cli(["status", "--json"]),
                let object = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            else { return false }
            figures = object
            // The engine records a fire just after the answer is counted: the database catches up a moment later.
            let devices = (object["cluster"] as? [String: Any])?["devices"] as? [String: Int]
            return (object["worker"] as? [String: Any])?["answers"] as? [String: Int] == ["Success": 1, "Unregistered": 1]
                && (object["cluster"] as? [String: Any])?["pending"] as? Int == 1 && devices?["inactive"] == 1
        }
        let answers = (figures["worker"] as? [String: Any])?["answers"] as? [String: Int]
        #expect(answers == ["Success": 1, "Unregistered": 1], "\(figures)")
        let cluster = try #require(figures["cluster"] as? [String: Any])
        #expect(cluster["pending"] as? Int == 1)  // the daily request
        #expect(cluster["devices"] as? [String: Int] == ["active": 1, "inactive": 1])
        let text = try await cli(["status"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("APNs answers   Success 1, Unregistered 1"), "\(text.stdout)")
        #expect(text.stdout.contains("devices        1 active, 1 inactive"))

        #expect(try await cli(["cancel", "paris", "morning"]).stdout.contains("cancelled morning for paris"))
        // Bad input: a clear line and status 1, nothing changed.
        let unknown = try await cli(["cancel", "paris", "morning"])
        #expect(unknown.status == 1 && unknown.stderr.contains("404 UnknownRequest"), "\(unknown.stderr)")
        let inactive = try await cli(["schedule", "--device", "gone", "--id", "x", "--in", "60"])
        #expect(inactive.status == 1 && inactive.stderr.contains("409 InactiveDevice"), "\(inactive.stderr)")
        let wrongToken = side.folder.appendingPathComponent("wrong.token").path
        try "not-the-token-at-all".write(toFile: wrongToken, atomically: true, encoding: .utf8)
        let refused = try await runProgram(try unotify(), ["server", "status", "--url", api, "--token-file", wrongToken])
        #expect(refused.status == 1 && refused.stderr.contains("401 Unauthorized"), "\(refused.stderr)")
        let badURL = try await runProgram(try unotify(), ["server", "status", "--url", "ftp://x", "--token-file", tokenFile])
        #expect(badURL.status != 0 && badURL.stderr.contains("--url takes an http://"))
        let noTrigger = try await cli(["schedule", "--device", "paris", "--id", "y", "--in", "5", "--hour", "9"])
        #expect(noTrigger.status != 0 && noTrigger.stderr.contains("not both"))

        // A JSON Lines file in batches of 2: the unknown device's line is reported by number, the others stored.
        let batchFile = side.folder.appendingPathComponent("batch.jsonl").path
        let later = #"{"timeInterval": 3600, "repeats": false}"#
        try [
            #"{"device": "paris", "request": {"identifier": "b1", "title": "One", "trigger": \#(later)}}"#, "",
            #"{"device": "nobody", "request": {"identifier": "b2", "trigger": \#(later)}}"#,
            #"{"device": "paris", "request": {"identifier": "b3", "title": "Three", "trigger": \#(later)}}"#,
        ].joined(separator: "\n").write(toFile: batchFile, atomically: true, encoding: .utf8)
        let batch = try await cli(["schedule-batch", batchFile, "--batch-size", "2"])
        #expect(batch.status == 1, "\(batch.stdout) \(batch.stderr)")
        #expect(batch.stdout.contains("scheduled 2 of 3 requests") && batch.stdout.contains("line 3: nobody b2: UnknownDevice"))
        let afterBatch = try await cli(["list", "paris"])
        #expect(afterBatch.stdout.contains("b1") && afterBatch.stdout.contains("b3"), "\(afterBatch.stdout)")
        // A bad line: reported with its number, and nothing of the file is sent.
        try (#"{"device": "paris", "request": {"identifier": "b4", "trigger": \#(later)}}"# + "\n[1, 2]\n")
            .write(toFile: batchFile, atomically: true, encoding: .utf8)
        let badLine = try await cli(["schedule-batch", batchFile])
        #expect(badLine.status == 1 && badLine.stderr.contains("line 2: not a JSON object"), "\(badLine.stderr)")
        #expect(try await cli(["list", "paris"]).stdout.contains("b4") == false)
        // --atomic: one refused line (the unknown device's) and nothing of the file is stored; a good file, all of it.
        try [
            #"{"device": "paris", "request": {"identifier": "atomic-one", "trigger": \#(later)}}"#,
            #"{"device": "nobody", "request": {"identifier": "atomic-two", "trigger": \#(later)}}"#,
        ].joined(separator: "\n").write(toFile: batchFile, atomically: true, encoding: .utf8)
        let atomicRefused = try await cli(["schedule-batch", batchFile, "--atomic"])
        #expect(atomicRefused.status == 1, "\(atomicRefused.stdout) \(atomicRefused.stderr)")
        #expect(
            atomicRefused.stdout.contains("nothing scheduled (atomic): 1 of 2 requests refused")
                && atomicRefused.stdout.contains("line 2: nobody atomic-two: UnknownDevice"), "\(atomicRefused.stdout)")
        #expect(try await cli(["list", "paris"]).stdout.contains("atomic-one") == false)
        let tooMany = try await cli(["schedule-batch", batchFile, "--atomic", "--batch-size", "1"])
        #expect(tooMany.status == 1 && tooMany.stderr.contains("--atomic sends the file in one call"), "\(tooMany.stderr)")
        try [
            #"{"device": "paris", "request": {"identifier": "atomic-one", "trigger": \#(later)}}"#,
            #"{"device": "paris", "request": {"identifier": "atomic-three", "trigger": \#(later)}}"#,
        ].joined(separator: "\n").write(toFile: batchFile, atomically: true, encoding: .utf8)
        let atomicGood = try await cli(["schedule-batch", batchFile, "--atomic"])
        #expect(atomicGood.status == 0 && atomicGood.stdout.contains("scheduled all 2 requests (atomic)"), "\(atomicGood.stdout)")
        // schedule --atomic: the unknown device refuses it, so paris does not get it either; then paris alone does.
        let refusedForAll = try await cli([
            "schedule", "--device", "paris", "--device", "nobody", "--id", "atomic-schedule", "--in", "600", "--atomic",
        ])
        #expect(refusedForAll.status == 1, "\(refusedForAll.stdout) \(refusedForAll.stderr)")
        #expect(
            refusedForAll.stdout.contains("nothing scheduled (atomic): refused for 1 of 2 devices")
                && refusedForAll.stdout.contains("nobody: UnknownDevice"), "\(refusedForAll.stdout)")
        #expect(try await cli(["list", "paris"]).stdout.contains("atomic-schedule") == false)
        let forAll = try await cli(["schedule", "--device", "paris", "--id", "atomic-schedule", "--in", "600", "--atomic"])
        #expect(
            forAll.status == 0 && forAll.stdout.contains("scheduled atomic-schedule for all 1 devices (atomic)"),
            "\(forAll)")
        let afterAtomic = try await cli(["list", "paris"])
        #expect(
            afterAtomic.stdout.contains("atomic-one") && afterAtomic.stdout.contains("atomic-three")
                && afterAtomic.stdout.contains("atomic-schedule"), "\(afterAtomic.stdout)")

        // An audience: every active device (gone is inactive by now), and a tag expression no device matches.
        let everyone = try await cli(["schedule", "--all", "--id", "everyone", "--title", "Hi", "--in", "3600"])
        #expect(everyone.status == 0 && everyone.stdout.contains("scheduled everyone for 1 devices"), "\(everyone.stdout) \(everyone.stderr)")
        #expect(try await cli(["list", "paris"]).stdout.contains("everyone"))
        let nobody = try await cli(["schedule", "--tag-expression", #"{"tag": "none"}"#, "--id", "n", "--in", "60"])
        #expect(nobody.status == 0 && nobody.stdout.contains("scheduled n for 0 devices"), "\(nobody.stdout) \(nobody.stderr)")
        let twoTargets = try await cli(["schedule", "--all", "--device", "paris", "--id", "z", "--in", "60"])
        #expect(twoTargets.status != 0 && twoTargets.stderr.contains("give the devices"), "\(twoTargets.stderr)")
        let atomicAudience = try await cli(["schedule", "--all", "--atomic", "--id", "z", "--in", "60"])
        #expect(atomicAudience.status != 0 && atomicAudience.stderr.contains("--atomic takes --device"), "\(atomicAudience.stderr)")
        let badExpression = try await cli(["schedule", "--tag-expression", "news", "--id", "z", "--in", "60"])
        #expect(badExpression.status != 0 && badExpression.stderr.contains("takes a JSON object"), "\(badExpression.stderr)")

        #expect(await stop(worker) == 0)
        await side.stop()
    }

    @Test(
        "unotify server push, stats and cancel-push against a real worker: a tag push with collapse id and expiry reaches APNs, its statistics as a table and JSON, a cancelled push, bad input"
    )
    func pushCommands() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let started = try await startAPIWorker(side: side)
        let worker = started.process
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        func cli(_ arguments: [String]) async throws -> ProcessOutput { try await self.cli(started, arguments) }
        // Devices and tags through the Swift API on the worker's database (the CLI's own commands are tested above).
        let gone = registration("gone", zone: "Asia/Tokyo")
        side.answer(.unregistered, token: gone.token)
        try await PostgresNotificationStore.withStore(
            configuration: try PostgresNotificationStore.configuration(databaseURL: started.databaseURL)
        ) { store in
            let devices = DeviceScheduler(
                store: store,
                scheduler: NotificationScheduler(store: store, clock: ServerWorker.utcClock, presenter: NoPresenter()))
            for device in [registration("paris", zone: "Europe/Paris"), registration("tokyo", zone: "Asia/Tokyo"), gone] {
                try await devices.register(device)
            }
        }
        // Audiences through `unotify server audience`.
        let bound = try await cli(["audience", "paris", "--tag", "news", "--alias", "paris phone"])
        #expect(bound.status == 0, "\(bound.stderr)")
        #expect(bound.stdout.contains("tags     news") && bound.stdout.contains("aliases  paris phone"), "\(bound.stdout)")
        #expect(try await cli(["audience", "gone", "--tag", "news"]).status == 0)
        let account = try await cli(["audience", "tokyo", "--account", "alice", "--json"])
        let audience = try JSONSerialization.jsonObject(with: Data(account.stdout.utf8)) as? [String: Any]
        #expect(audience?["account"] as? String == "alice", "\(account.stdout)")
        let unbound = try await cli(["audience", "paris", "--unbind-alias", "paris phone"])
        #expect(unbound.stdout.contains("aliases  (none)") && unbound.stdout.contains("tags     news"))
        let shown = try await cli(["audience", "tokyo"])
        #expect(shown.stdout.contains("account  alice") && shown.stdout.contains("tags     (none)"))
        let tooLong = try await cli(["audience", "paris", "--tag", String(repeating: "x", count: 129)])
        #expect(tooLong.status != 0 && tooLong.stderr.contains("InvalidName"), "\(tooLong.stderr)")
        let nobody = try await cli(["audience", "nobody"])
        #expect(nobody.status != 0 && nobody.stderr.contains("UnknownDevice"), "\(nobody.stderr)")
        let both = try await cli(["audience", "paris", "--account", "a", "--unbind-account"])
        #expect(both.status != 0 && both.stderr.contains("not both"))

        // A tag push: paris (200) and gone (410), with the collapse id and expiry as APNs headers.
        let before = Date()
        let sent = try await cli([
            "push", "--tag-expression", #"{"and": [{"tag": "news"}, {"not": {"tag": "muted"}}]}"#,
            "--title", "Match tonight", "--body", "20:00", "--extra", "Extras=match-42", "--collapse-id", "match-42",
            "--expires-in", "3600",
        ])
        #expect(sent.status == 0, "\(sent.stderr)")
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil, "\(sent.stdout)")
        #expect(await eventually(within: 60) { side.received.filter { $0.title == "Match tonight" }.count >= 2 })
        let received = side.received.filter { $0.title == "Match tonight" }
        #expect(Set(received.map(\.token)) == [registration("paris", zone: "UTC").token, gone.token])
        #expect(received.allSatisfy { $0.collapseID == "match-42" })
        let expiration = received.compactMap { Double($0.expiration) }
        #expect(expiration.count == 2)
        #expect(
            expiration.allSatisfy {
                $0 >= (before.timeIntervalSince1970 + 3600).rounded(.down) && $0 <= Date().timeIntervalSince1970 + 3600
            }, "\(expiration)")

        // Its statistics once both answers are recorded: JSON, then the table.
        var statistics: [String: Any] = [:]
        _ = await eventually(within: 30) {
            guard let answer = try? await cli(["stats", id, "--json"]),
                let object = try? JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any],
                let inner = object["statistics"] as? [String: Any]
            else { return false }
            statistics = inner
            return inner["sent"] as? Int == 2
        }
        #expect(statistics["targeted"] as? Int == 2 && statistics["accepted"] as? Int == 1, "\(statistics)")
        #expect(statistics["failed"] as? Int == 1)
        let table = try await cli(["stats", id])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("push \(id)  done  target tag"), "\(table.stdout)")
        #expect(table.stdout.contains("  targeted     2\n  sent         2\n  accepted     1\n  failed       1\n"))
        #expect(table.stdout.contains("    by reason  APNs: Unregistered 1\n"), "\(table.stdout)")
        #expect(table.stdout.contains("  hour (UTC)              accepted    failed  received    opened\n"))
        // One row per hour (two if the answers straddle an hour).
        #expect(
            table.stdout.range(
                of: #"\n  \d{4}-\d\d-\d\dT\d\d:00:00Z +[01] +[01] +0 +0\n"#, options: .regularExpression) != nil,
            "\(table.stdout)")
        let topic = try await cli(["stats", "--topic", "com.example.app"])
        #expect(topic.stdout.contains("topic com.example.app") && topic.stdout.contains("  accepted     1"))
        #expect(topic.stdout.contains("hour (UTC)") && topic.stdout.contains("received"), "\(topic.stdout)")

        // The same figures as pages in a browser (docs/push-service.md, "In the browser"), served by the worker
        // process itself: the link `unotify server center` prints opens a session, whose cookie reads the push's page.
        let center = try await cli(["center"])
        #expect(center.status == 0, "\(center.stderr)")
        let link = center.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix(started.api + "center?token=") && !link.contains("cli-test-token"), "\(link)")
        let opened = try await runProgram("/usr/bin/curl", ["-s", "-i", link])
        #expect(opened.stdout.hasPrefix("HTTP/1.1 303"), "\(opened.stdout)")
        let setCookie = opened.stdout.split(separator: "\r\n").first {
            $0.lowercased().hasPrefix("set-cookie: unotify-push-center=")
        }
        let cookie = try #require(setCookie).dropFirst("set-cookie: ".count).split(separator: ";")[0]
        let page = try await runProgram(
            "/usr/bin/curl", ["-s", "-b", String(cookie), started.api + "center/pushes/" + id])
        #expect(page.stdout.contains("<h1>Match tonight</h1>"), "\(page.stdout)")
        #expect(page.stdout.contains("<dd data-figure=\"accepted\">1</dd>"))
        #expect(page.stdout.contains("APNs: Unregistered") && page.stdout.contains("<g class=\"hour\""))
        let refused = try await runProgram(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", started.api + "center"])
        #expect(refused.stdout == "401")

        // A push for tomorrow to an account, cancelled before it is sent; cancelling again is refused.
        let later = try await cli([
            "push", "--account", "alice", "--title", "Later", "--at", Date().addingTimeInterval(86_400).ISO8601Format(),
        ])
        let laterID = later.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(later.status == 0 && !laterID.isEmpty, "\(later.stderr)")
        let cancelled = try await cli(["cancel-push", laterID])
        #expect(cancelled.stdout.contains("cancelled push \(laterID) (0 devices' requests removed)"), "\(cancelled)")
        #expect(try await cli(["stats", laterID]).stdout.contains("  cancelled  target account"))
        let again = try await cli(["cancel-push", laterID])
        #expect(again.status == 1 && again.stderr.contains("409 AlreadySent"), "\(again.stderr)")

        // Bad input: a clear line, status not 0, nothing sent.
        let refusals: [([String], String)] = [
            (["push", "--title", "x"], "exactly one target"),
            (["push", "--all", "--alias", "a", "--title", "x"], "exactly one target"),
            (["push", "--all"], "needs --title"),
            (["push", "--all", "--title", "x", "--extra", "novalue"], "KEY=VALUE"),
            (["push", "--all", "--title", "x", "--local-time", "25:00"], "HH:MM"),
            (["push", "--all", "--title", "x", "--collapse-id", String(repeating: "c", count: 65)], "400 BadRequest"),
            (["push", "--tag-expression", #"{"nor": []}"#, "--title", "x"], "400 InvalidTagExpression"),
            (["push", "--tag-expression", "news", "--title", "x"], "must be a JSON object"),
            (["stats", "nope"], "404 UnknownMessage"),
            (["stats"], "a message id or --topic"),
            (["cancel-push", "nope"], "404 UnknownMessage"),
        ]
        for (arguments, message) in refusals {
            let refused = try await cli(arguments)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        #expect(side.received.count == 2)

        #expect(await stop(worker) == 0)
        await side.stop()
    }

    @Test(
        "SIGHUP reads --api-token-file again: named tokens take over, a deleted line gets 401, a bad file keeps the tokens in use; tokens never in the log"
    )
    func tokenReloadOnSIGHUP() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let started = try await startAPIWorker(side: side)
        let worker = started.process
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        let old = try String(contentsOfFile: started.tokenFile, encoding: .utf8)
        let (backend, ci) = ("backend-token-0123456789abcdef", "ci-token-fedcba9876543210")
        let base = started.api
        /// The status of `GET /v1/devices` with a token, by curl.
        func status(_ token: String) async throws -> String {
            let result = try await runProgram(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)", base + "v1/devices"])
            return result.stdout
        }
        /// Sends SIGHUP and waits until the tokens answer as expected.
        func reload(_ text: String, expecting: [String: String]) async throws -> Bool {
            try text.write(toFile: started.tokenFile, atomically: true, encoding: .utf8)
            kill(worker.processIdentifier, SIGHUP)
            return try await eventually(within: 60) {
                for (token, expected) in expecting where try await status(token) != expected { return false }
                return true
            }
        }
        #expect(try await status(old) == "200")
        #expect(try await status(backend) == "401")
        // From the one-token form to named tokens.
        #expect(try await reload("# clients\nbackend \(backend)\nci \(ci)\n", expecting: [old: "401", backend: "200", ci: "200"]))
        // Revoking ci: its line deleted.
        #expect(try await reload("backend \(backend)\n", expecting: [ci: "401", backend: "200"]))
        // A bad file: refused, logged, the tokens in use stay.
        try "backend \(backend)\nci short\n".write(toFile: started.tokenFile, atomically: true, encoding: .utf8)
        kill(worker.processIdentifier, SIGHUP)
        let log = side.folder.appendingPathComponent("worker.log")
        let refused = await eventually(within: 60) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("the API token file was refused")
        }
        #expect(refused)
        #expect(try await status(backend) == "200")
        #expect(try await status(ci) == "401")
        #expect(worker.isRunning)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(text.contains("line 2: the token of 'ci' must be at least 16 characters"), "\(text)")
        #expect(text.contains("read the API token file again"), "\(text)")
        for token in [old, backend, ci] { #expect(!text.contains(token), "a token in the log") }
        #expect(await stop(worker) == 0)
        await side.stop()
    }

    @Test(
        "unotifyd --server with --api-tls-certificate and --api-tls-key serves HTTPS: curl or unotify server trusting the certificate is answered, without it or over plain HTTP it fails"
    )
    func tlsWorker() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let tls = side.folder.appendingPathComponent("api-tls", isDirectory: true)
        try FileManager.default.createDirectory(at: tls, withIntermediateDirectories: true)
        let (certificate, key) = try await makeCertificate(in: tls)
        let started = try await startAPIWorker(
            side: side, arguments: ["--api-tls-certificate", certificate, "--api-tls-key", key])
        let worker = started.process
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        #expect(started.api.hasPrefix("https://127.0.0.1:"), "\(started.api)")
        let token = try String(contentsOfFile: started.tokenFile, encoding: .utf8)
        func curl(_ url: String, _ options: [String]) async throws -> ProcessOutput {
            try await runProgram(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20", "-H", "Authorization: Bearer \(token)"]
                    + options + [url + "v1/status"])
        }
        let trusted = try await curl(started.api, ["--cacert", certificate])
        #expect(trusted.status == 0 && trusted.stdout == "200", "\(trusted)")
        // curl's exit status 60: the peer's certificate cannot be verified with the known authorities.
        let untrusted = try await curl(started.api, [])
        #expect(untrusted.status == 60, "\(untrusted)")
        // Plain HTTP to the TLS port: no HTTP answer (curl: 52 empty reply, or 56 a failure receiving).
        let plain = try await curl(started.api.replacingOccurrences(of: "https://", with: "http://"), [])
        #expect(plain.status != 0 && plain.stdout == "000", "\(plain)")
        #expect(try await curl(started.api, ["--cacert", certificate]).stdout == "200")
        // unotify server with --trust-roots. (Without it the system's roots do not know the certificate, as curl
        // showed: AsyncHTTPClient then tries to connect again until its 30 s deadline, too long for this test.)
        let status = try await cli(started, ["status", "--trust-roots", certificate])
        #expect(status.status == 0 && status.stdout.contains("cluster ("), "\(status)")
        let unreadable = try await cli(started, ["status", "--trust-roots", started.tokenFile])
        #expect(unreadable.status == 1 && unreadable.stderr.contains("cannot read --trust-roots"), "\(unreadable)")
        try await Self.checkCertificateReload(started, side: side, served: (certificate, key), curl: curl)
        #expect(await stop(worker) == 0)
        await side.stop()
    }

    /// SIGHUP after the served certificate and key were renewed on disk: new connections get the renewed certificate;
    /// then a key that is not the certificate's is refused, logged, and the renewed pair stays.
    static func checkCertificateReload(
        _ started: APIWorker, side: DeviceSide, served: (certificate: String, key: String),
        curl: (String, [String]) async throws -> ProcessOutput
    ) async throws {
        let folder = side.folder.appendingPathComponent("api-tls-renewed", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let renewed = try await makeCertificate(in: folder)
        let old = served.certificate + ".old"
        try FileManager.default.copyItem(atPath: served.certificate, toPath: old)
        let oldKey = served.key + ".old"
        try FileManager.default.copyItem(atPath: served.key, toPath: oldKey)
        for (from, to) in [(renewed.certificate, served.certificate), (renewed.key, served.key)] {
            try FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        let (api, worker) = (started.api, started.process)
        kill(worker.processIdentifier, SIGHUP)
        let switched = try await eventually(within: 60) {
            try await curl(api, ["--cacert", renewed.certificate]).stdout == "200"
        }
        #expect(switched)
        #expect(try await curl(api, ["--cacert", old]).status == 60)
        // A key that is not the certificate's: refused, logged, the renewed pair stays.
        try FileManager.default.removeItem(atPath: served.key)
        try FileManager.default.copyItem(atPath: oldKey, toPath: served.key)
        kill(worker.processIdentifier, SIGHUP)
        let log = side.folder.appendingPathComponent("worker.log")
        let refused = await eventually(within: 60) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("the API's TLS certificate or key was refused")
        }
        #expect(refused)
        #expect(try await curl(api, ["--cacert", renewed.certificate]).stdout == "200")
    }
}
