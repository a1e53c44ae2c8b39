import Foundation
import NotificationEngine
import NotificationStoreSQLite
import Synchronization
import Testing

/// One store, one policy: the settings in the store apply to every process on it.
@Suite("one store, one policy", .serialized)
struct StorePolicyTests {
    @Test("unotify config set/get/unset round-trips; bad values get one clear error")
    func configCommand() async throws {
        let (path, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await execute(["config", "--store", path]) == "pending-cap unset\nauthorization unset\n")
        _ = try await execute(["config", "set", "pending-cap", "off", "--store", path])
        _ = try await execute(["config", "set", "authorization", "deny", "--store", path])
        #expect(try await execute(["config", "get", "--store", path]) == "pending-cap off\nauthorization deny\n")
        #expect(try await SQLiteNotificationStore(path: path).policy() == StorePolicy(pendingCap: .unlimited, authorizationPolicy: .deny))
        _ = try await execute(["config", "unset", "authorization", "--store", path])
        #expect(try await execute(["config", "get", "authorization", "--store", path]) == "authorization unset\n")
        for bad in [["pending-cap", "-1"], ["pending-cap", "many"], ["authorization", "maybe"]] {
            await #expect(throws: (any Error).self) { _ = try await execute(["config", "set"] + bad + ["--store", path]) }
        }
        #expect(try await SQLiteNotificationStore(path: path).policy().pendingCap == .unlimited)
    }

    @Test("the store's cap wins over each engine's own: an add under the default cap of 64 removes nothing")
    func storeCapWins() async throws {
        let (path, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await execute(["config", "set", "pending-cap", "off", "--store", path])
        // This process's engines have the default cap, 64: the store's setting says off.
        for index in 0..<80 {
            _ = try await execute(["add", "--mode", "embedded", "--store", path, "--in", "\(3_600 + index)s", "--id", "r\(index)"])
        }
        #expect(try await execute(["list", "--mode", "embedded", "--store", path, "--json"]).components(separatedBy: "\"identifier\"").count - 1 == 80)
        // And a cap of 10 set later applies to the next add, in any process.
        _ = try await execute(["config", "set", "pending-cap", "10", "--store", path])
        _ = try await execute(["add", "--mode", "embedded", "--store", path, "--in", "1s", "--id", "soon"])
        let kept = try await SQLiteNotificationStore(path: path).pendingRequests(appID: "local.unotify").map(\.identifier)
        #expect(kept.count == 10 && kept.contains("soon"))
    }

    @Test("unotifyd --pending-cap off writes the store's policy: adds from 4 clients while the daemon is killed and restarted lose none")
    func daemonPolicyOutlivesDaemon() async throws {
        let daemon = DaemonProcess(arguments: ["--pending-cap", "off"])
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        // The clients' own environment keeps the default cap (64): only the store's policy says off.
        let environment = daemon.environment.merging(["OPENUN_PENDING_CAP": "64"]) { $1 }
        let acknowledged = Acknowledged()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask {
                    for index in 0..<25 {
                        let id = "c\(client)-\(index)"
                        let command = try RunningCommand(["add", "--in", "1h", "--id", id], environment: environment)
                        await command.waitForExit()
                        if command.process.terminationStatus == 0 { acknowledged.insert(id) }
                    }
                }
            }
            group.addTask {
                // Kill the daemon mid-way, and bring it back: the clients fall back to embedded engines meanwhile.
                try await Task.sleep(for: .milliseconds(300))
                await daemon.kill9()
                try await Task.sleep(for: .milliseconds(500))
                try await daemon.start()
            }
            try await group.waitForAll()
        }
        let stored = Set(try await SQLiteNotificationStore(path: daemon.store).pendingRequests(appID: "local.unotify").map(\.identifier))
        #expect(acknowledged.all.count > 64)
        #expect(acknowledged.all.subtracting(stored).isEmpty, "lost: \(acknowledged.all.subtracting(stored).sorted())")
    }
}
