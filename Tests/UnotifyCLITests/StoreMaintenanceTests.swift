import ArgumentParser
import Foundation
import NotificationStoreSQLite
import Testing

@testable import UnotifyCLI

/// A store file with `count` pending requests (at most the default pending cap, 64), all in its main file (the write-ahead log checkpointed), so that
/// damaging the file damages the requests.
func checkpointedStore(count: Int) async throws -> (path: String, folder: URL) {
    let (path, folder) = temporaryStore()
    for index in 0..<count {
        _ = try await execute([
            "add", "--mode", "embedded", "--store", path, "--in", "1h", "--id", "r\(index)",
            "--title", "request \(index) " + String(repeating: "x", count: 1_200),
        ])
    }
    try SQLiteNotificationStore(path: path).checkpoint()
    return (path, folder)
}

/// Overwrites `length` bytes at `offset` of a file with a pattern that is no SQLite page.
func scribble(_ path: String, offset: Int, length: Int) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(repeating: 0xA5, count: length))
}

@Suite("unotify store check and recover")
struct StoreMaintenanceTests {
    @Test("check: a sound store says so with its counts, status 0; it changes nothing")
    func checkSound() async throws {
        let (path, folder) = try await checkpointedStore(count: 3)
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let output = try await execute(["store", "check", "--store", path])
        #expect(output.hasPrefix("\(path): sound ("))
        #expect(output.contains("3 pending"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("check: pages overwritten in the middle are reported, status 65")
    func checkDamaged() async throws {
        let (path, folder) = try await checkpointedStore(count: 60)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        try scribble(path, offset: size / 2, length: 8_192)
        await #expect(throws: ExitCode(65)) { _ = try await execute(["store", "check", "--store", path]) }
    }

    @Test("recover: the damaged file is kept aside byte for byte; readable rows come back on both sides of the damage")
    func recoverKeepsAndSalvages() async throws {
        let count = 60
        let (path, folder) = try await checkpointedStore(count: count)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        try scribble(path, offset: size / 2, length: 4_096)
        let damagedBytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let output = try await execute(["store", "recover", "--store", path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let copy = try #require(report["damagedCopy"] as? String)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == damagedBytes)
        let recovered = try #require((report["recovered"] as? [String: Int])?["pending"])
        let lost = (report["lost"] as? [String: Int])?["pending"] ?? 0
        #expect(recovered > count / 2, "recovered \(recovered) of \(count)")
        #expect(recovered + lost == count, "recovered \(recovered), lost \(lost) of \(count)")
        // The new store is sound and lists the first and the last request (both sides of the damaged page).
        #expect(try await execute(["store", "check", "--store", path]).contains("sound"))
        let listed = try await execute(["list", "--mode", "embedded", "--store", path])
        #expect(listed.contains(" r0 ") && listed.contains(" r\(count - 1) "), "\(listed.prefix(400))")
    }

    @Test("recover refuses while a daemon holds the store, and leaves the store alone")
    func recoverRefusesUnderDaemon() async throws {
        let daemon = DaemonProcess()
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        await #expect(throws: CLIError.self) {
            _ = try await execute(["store", "recover", "--store", daemon.store, "--force"])
        }
        #expect(FileManager.default.fileExists(atPath: daemon.store))
    }

    @Test("a command on a damaged store: one line naming the store and `unotify store check`, status 65")
    func commandOnDamagedStore() async throws {
        let (path, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8_192).write(to: URL(fileURLWithPath: path))
        let command = try RunningCommand(["list", "--store", path], environment: ["OPENUN_MODE": "embedded"])
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.hasSuffix("\n") }
        #expect(command.process.terminationStatus == 65)
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("unotify store check"))
    }
}
