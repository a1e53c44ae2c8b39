import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import PostgresTestServer
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
        var workers: [Process] = []
        for index in 0..<2 {
            let process = Process()
            process.executableURL = try unotifyd()
            process.arguments = [
                "--server", "--database", url, "--provider-key", side.keyPath, "--provider-team-id", DeviceSide.teamID,
                "--provider-development-server", "127.0.0.1:\(side.port)",
                "--provider-production-server", "127.0.0.1:\(side.port)", "--provider-trust-roots", side.certificate,
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
        let statuses = await withCheckedContinuation { continuation in
            Thread {
                for worker in started { worker.waitUntilExit() }
                continuation.resume(returning: started.map(\.terminationStatus))
            }.start()
        }
        let logs = (0..<2).map { index in
            (try? String(contentsOf: side.folder.appendingPathComponent("worker-\(index).log"), encoding: .utf8)) ?? ""
        }
        #expect(statuses == [0, 0], "\(logs)")
        await side.stop()
    }
}
