// Support for the seed translation tests. Not part of any translation.

import Foundation
import Testing

/// Collects what the translated apps print (`print` and `NSLog` in the seeds), so a test can wait for a line
/// instead of sleeping.
///
/// Every translated type takes a `log` function that prints by default; the tests hand it ``record(_:)``.
final class PrintLog: @unchecked Sendable {  // `_lines` and `waiters` guarded by `lock`
    private struct Waiter {
        var condition: @Sendable ([String]) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private let lock = NSLock()
    private var _lines: [String] = []
    private var waiters: [Waiter] = []

    /// Everything printed so far, oldest first.
    var lines: [String] { lock.withLock { _lines } }

    /// The function to give a translated app in place of `print`.
    var record: @Sendable (String) -> Void { { [self] line in append(line) } }

    private func append(_ line: String) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            _lines.append(line)
            let lines = _lines
            let ready = waiters.filter { $0.condition(lines) }.map(\.continuation)
            waiters.removeAll { $0.condition(lines) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once the printed lines satisfy `condition` (at once if they already do).
    func wait(until condition: @escaping @Sendable ([String]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = lock.withLock {
                if condition(_lines) { return true }
                waiters.append(Waiter(condition: condition, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Returns once `line` has been printed `count` times.
    func wait(for line: String, count: Int = 1) async {
        await wait { lines in lines.filter { $0 == line }.count >= count }
    }

    /// How many times `line` was printed.
    func count(of line: String) -> Int { lines.filter { $0 == line }.count }
}

/// 2026-01-05 09:00 UTC, a Monday: where every ``NotificationTestSystem`` starts by default.
let testSystemStart = Date(timeIntervalSince1970: 1_767_603_600)

/// A UTC date, for expectations.
func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
}

/// A fresh temporary folder, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("seed-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
