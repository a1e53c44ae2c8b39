import Foundation
import Testing
import TestPrograms

/// Power cuts, not only kill -9: the store over a file layer that drops every write not yet synced
/// (Tests/Support/CPowerCutVFS), cut at 1,000 random points during adds, replacements and deliveries, by the
/// fixture program Tests/Fixtures/PowerCutFixture (in a process of its own: the layer becomes that process's
/// default SQLite VFS).
@Suite("SQLite store under power cuts")
struct PowerCutTests {
    static func fixture() throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("PowerCutFixture")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        let bundle = Bundle.main.bundleURL.appendingPathComponent("PowerCutFixture")
        try #require(FileManager.default.isExecutableFile(atPath: bundle.path), "build PowerCutFixture first")
        return bundle.path
    }

    @Test("1,000 power cuts: every acknowledged add survives, the store always opens, integrity check passes")
    func thousandCuts() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("powercut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: try Self.fixture())
        process.arguments = [folder.appendingPathComponent("store.sqlite").path, "20261125", "1000"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }.start()
        }
        await process.exited()
        let report = String(decoding: text, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(report)")
        #expect(report.hasPrefix("1000 cuts: ") && report.contains(", 0 lost;"), "\(report)")
    }
}
