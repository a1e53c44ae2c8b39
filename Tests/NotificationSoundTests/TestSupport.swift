import Foundation
import NotificationPlatform
@testable import NotificationSound

/// External programs the tests may use.
enum Tool {
    /// The path of `name` on `PATH`, or `nil`.
    static func path(_ name: String) -> String? { SpawnedProcess.executable(named: name) }

    /// Whether every program in `names` is on `PATH`.
    static func all(_ names: String...) -> Bool { names.allSatisfy { path($0) != nil } }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `name` to completion (at most 20 s), off the cooperative pool.
    static func run(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> SpawnedProcess.Exit {
        guard let executable = path(name) else { throw Failure(description: "\(name) is not installed") }
        let child = try SpawnedProcess(
            executable: executable, arguments: arguments,
            environment: environment ?? ProcessInfo.processInfo.environment)
        return await child.waitForExit(timeout: .seconds(20))
    }

    /// Runs `name` and throws unless it exits with status 0.
    @discardableResult
    static func succeed(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> SpawnedProcess.Exit {
        let exit = try await run(name, arguments, environment: environment)
        guard exit.succeeded else {
            throw Failure(description: "\(name) \(arguments.joined(separator: " ")) \(exit.summary): \(exit.errorOutput)")
        }
        return exit
    }
}

/// A fresh directory under the temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "sound-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appending(path: name) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
