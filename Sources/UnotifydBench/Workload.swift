import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// The requests the benches add and store.
enum Workload {
    /// A small, realistic content: a title and a one-line body.
    static func content(_ index: Int) -> NotificationPayload {
        var content = NotificationPayload()
        content.title = "Reminder \(index)"
        content.body = "Something to do, number \(index)"
        content.threadIdentifier = "bench"
        return content
    }

    /// What the add benches send: a one-shot time-interval trigger a day away, so nothing fires during the run.
    static func addSpec(_ identifier: String, _ index: Int) -> RequestSpec {
        RequestSpec(identifier: identifier, content: content(index), trigger: .timeInterval(86_400, repeats: false))
    }

    /// `count` distinct hour/minute components (floating: no zone) whose next match in `calendar` is between 90
    /// minutes and ~22 hours after `now`, spread evenly over that span.
    static func calendarCombinations(_ count: Int, calendar: Calendar, now: Date) -> [CalendarComponents] {
        let start = now.addingTimeInterval(90 * 60)
        let stepMinutes = max(1, (20 * 60) / max(count, 1))
        var seen = Set<CalendarComponents>()
        var combinations: [CalendarComponents] = []
        var minute = 0
        while combinations.count < count, minute < 23 * 60 {
            let parts = calendar.dateComponents([.hour, .minute], from: start.addingTimeInterval(Double(minute) * 60))
            var components = CalendarComponents()
            components.hour = parts.hour
            components.minute = parts.minute
            if seen.insert(components).inserted { combinations.append(components) }
            minute += stepMinutes
        }
        return combinations
    }
}

/// Fills a store file with the store API, fast: `SQLiteNotificationStore.insertPending` (cap off; the API has no
/// batch insert, so one transaction per row) into a staging copy on tmpfs when there is one, so the per-commit
/// `fsync` of `synchronous = FULL` costs nothing; the finished file is then copied to each destination.
struct StoreFiller {
    struct Report: Sendable {
        var rows: Int
        var seconds: Double
        var bytes: Int64
        var where_: String

        var summary: String {
            "\(Format.count(rows)) rows via SQLiteNotificationStore.insertPending in \(Format.duration(seconds)) "
                + "(\(Format.number(Double(rows) / seconds)) rows/s, \(where_)), \(Format.mebibytes(bytes: bytes))"
        }
    }

    /// Where staging goes: a tmpfs folder when `/dev/shm` is one and `useTmpfs`, else the destination's folder.
    var useTmpfs: Bool

    func fill(
        into destinations: [String], rows: Int, label: String, make: (Int) -> PendingRequest
    ) async throws -> Report {
        precondition(!destinations.isEmpty)
        let tmpfs = useTmpfs && ProcFS.fileSystem(of: "/dev/shm").hasPrefix("tmpfs")
        let staging = tmpfs ? try TemporaryFolder(in: "/dev/shm", prefix: "unotifyd-bench-fill") : nil
        defer { staging?.remove() }
        let stagingPath = staging?.file("fill.sqlite") ?? destinations[0]
        let now = Date()
        let seconds = try await insertAll(into: stagingPath, rows: rows, label: label, at: now, make: make)
        // The store is closed here (insertAll closed it: its last connection checkpointed and removed the WAL); copy
        // the files.
        for destination in destinations where destination != stagingPath {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: destination).deletingLastPathComponent().path,
                withIntermediateDirectories: true)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: stagingPath + suffix) {
                try? FileManager.default.removeItem(atPath: destination + suffix)
                try FileManager.default.copyItem(atPath: stagingPath + suffix, toPath: destination + suffix)
            }
        }
        return Report(
            rows: rows, seconds: seconds, bytes: storeBytes(destinations[0]),
            where_: tmpfs ? "staged on tmpfs, copied to /tmp" : "directly in /tmp, fsync per row")
    }

    /// Inserts the rows and closes the store before returning: a store merely released closes later, on one of
    /// GRDB's queues, and a copy made meanwhile could catch its last checkpoint half-written (`--only 3` then found
    /// the copied store "malformed" now and then). - Returns: The seconds it took.
    private func insertAll(into path: String, rows: Int, label: String, at now: Date, make: (Int) -> PendingRequest)
        async throws -> Double
    {
        let store = try SQLiteNotificationStore(path: path)
        let start = ContinuousClock.now
        var nextReport = start + .seconds(5)
        for index in 0..<rows {
            _ = try await store.insertPending(make(index), cap: nil, at: now)
            if ContinuousClock.now >= nextReport {
                progress("\(label): \(Format.count(index + 1)) / \(Format.count(rows)) rows")
                nextReport = .now + .seconds(5)
            }
        }
        let seconds = start.duration(to: .now).seconds
        try store.close()
        return seconds
    }
}
