import Foundation
import NotificationDaemon
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `unotifyd --loop-realtime-priority`: the delivery loop's thread under `SCHED_FIFO` (docs/benchmarks.md, "The late
/// tail: what a late delivery waits for").
@Suite("unotifyd loop priority", .serialized)
struct DaemonLoopPriorityTests {
    @Test("--loop-realtime-priority takes a SCHED_FIFO priority from 1 to 99")
    func parsing() throws {
        _ = try DaemonOptions.parse(["--loop-realtime-priority", "10"])
        for bad in ["0", "100", "-3", "high"] {
            #expect(throws: (any Error).self, "\(bad)") { try DaemonOptions.parse(["--loop-realtime-priority", bad]) }
        }
    }

    @Test("the daemon's delivery loop thread runs under SCHED_FIFO at the priority asked, where the system allows it")
    func loopThreadPolicy() async throws {
        let daemon = DaemonProcess(arguments: ["--loop-realtime-priority", "7"])
        defer { Task { await daemon.stop() } }
        try await daemon.start()
        let pid = try #require(daemon.processID)
        // The loop's thread is named when it starts, as the daemon starts its engine: looked for until a deadline.
        var scheduling: (policy: Int, priority: Int)?
        let deadline = Date().addingTimeInterval(10)
        while scheduling == nil, Date() < deadline {
            scheduling = Self.schedulingOfThread(named: "unotify-loop", in: pid)
            if scheduling == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let found = try #require(scheduling, "no unotify-loop thread in unotifyd")
        var limit = rlimit()
        // RLIMIT_RTPRIO (14 on Linux), which Glibc's module map does not bring to Swift.
        getrlimit(14, &limit)
        let allowed = geteuid() == 0 || limit.rlim_cur >= 7
        // /proc's policy: 0 SCHED_OTHER, 1 SCHED_FIFO; rt_priority 0 under SCHED_OTHER.
        #expect(found.policy == (allowed ? 1 : 0), "\(found)")
        #expect(found.priority == (allowed ? 7 : 0), "\(found)")
    }

    /// The scheduling policy and real-time priority (fields 41 and 40 of `/proc/PID/task/TID/stat`) of the thread
    /// named `name` in process `pid`, or `nil` when it has none.
    private static func schedulingOfThread(named name: String, in pid: Int32) -> (policy: Int, priority: Int)? {
        let tasks = "/proc/\(pid)/task"
        for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            let comm = (try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)" come the fields from the third on.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count >= 39, let priority = Int(fields[37]), let policy = Int(fields[38]) else { continue }
            return (policy, priority)
        }
        return nil
    }
}
