import Foundation

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("NotificationPlatformTests: unsupported operating system")
#endif

/// Thrown by ``firstElement(of:within:)`` when nothing arrived in time.
struct TimedOut: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "nothing arrived within \(timeout)" }
}

/// The first element of `stream`, waiting at most `timeout` (a bound for a broken monitor, not a delay: a
/// working one answers in milliseconds).
func firstElement<Element: Sendable>(
    of stream: AsyncStream<Element>, within timeout: Duration = .seconds(10)
) async throws -> Element? {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimedOut(timeout: timeout)
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// A fresh temporary folder, removed by `body`'s caller through the returned URL.
func makeTemporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("NotificationPlatformTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
