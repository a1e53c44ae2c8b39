import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Context switches of one thread, from `/proc/self/task/<tid>/status`.
struct ThreadSwitches: Sendable {
    var tid: Int
    var name: String
    var voluntary: Int
    var nonvoluntary: Int
}

/// The process's context switches at one instant.
struct SwitchSnapshot: Sendable {
    /// Per live thread, by thread id.
    var threads: [Int: ThreadSwitches]
    /// `getrusage(RUSAGE_SELF)`: every thread of the process, including threads that have exited.
    var rusageVoluntary: Int
    var rusageNonvoluntary: Int

    static func take() -> SwitchSnapshot {
        var threads: [Int: ThreadSwitches] = [:]
        let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for tidText in tids {
            guard let tid = Int(tidText),
                let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8)
            else { continue }
            var entry = ThreadSwitches(tid: tid, name: "", voluntary: 0, nonvoluntary: 0)
            for line in status.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                switch parts[0] {
                case "Name": entry.name = value
                case "voluntary_ctxt_switches": entry.voluntary = Int(value) ?? 0
                case "nonvoluntary_ctxt_switches": entry.nonvoluntary = Int(value) ?? 0
                default: break
                }
            }
            threads[tid] = entry
        }
        var usage = rusage()
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return SwitchSnapshot(
            threads: threads, rusageVoluntary: Int(usage.ru_nvcsw), rusageNonvoluntary: Int(usage.ru_nivcsw))
    }
}

/// The context switches between two snapshots.
struct SwitchDelta: Sendable {
    /// Whole process (`getrusage`), including threads that exited in between.
    var voluntary: Int
    var nonvoluntary: Int
    /// Sum over the threads alive at the end (`/proc/self/task/*/status`); new threads count from zero.
    var threadSumVoluntary: Int
    var threadSumNonvoluntary: Int
    var threadsBefore: Int
    var threadsAfter: Int
    /// The threads that switched, busiest first.
    var busiest: [ThreadSwitches]

    init(from before: SwitchSnapshot, to after: SwitchSnapshot) {
        voluntary = after.rusageVoluntary - before.rusageVoluntary
        nonvoluntary = after.rusageNonvoluntary - before.rusageNonvoluntary
        var perThread: [ThreadSwitches] = []
        for (tid, thread) in after.threads {
            let old = before.threads[tid]
            perThread.append(
                ThreadSwitches(
                    tid: tid, name: thread.name, voluntary: thread.voluntary - (old?.voluntary ?? 0),
                    nonvoluntary: thread.nonvoluntary - (old?.nonvoluntary ?? 0)))
        }
        threadSumVoluntary = perThread.reduce(0) { $0 + $1.voluntary }
        threadSumNonvoluntary = perThread.reduce(0) { $0 + $1.nonvoluntary }
        threadsBefore = before.threads.count
        threadsAfter = after.threads.count
        busiest = perThread.filter { $0.voluntary + $0.nonvoluntary > 0 }
            .sorted { ($0.voluntary + $0.nonvoluntary, $1.tid) > ($1.voluntary + $1.nonvoluntary, $0.tid) }
    }

    var busiestDescription: String {
        busiest.isEmpty
            ? "no thread switched"
            : busiest.prefix(6).map { "\($0.name.isEmpty ? "?" : $0.name)#\($0.tid) \($0.voluntary)v/\($0.nonvoluntary)nv" }
                .joined(separator: ", ")
    }
}

/// What the report says about the machine.
enum Machine {
    static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    static var modelName: String {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in cpuinfo.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    static var kernel: String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "unknown")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static var memory: String {
        guard let meminfo = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
            let line = meminfo.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") })
        else { return "unknown" }
        let kib = Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        return String(format: "%.1f GiB", kib / 1_048_576)
    }

    static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "unknown")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The file system a path lives on, from `/proc/self/mounts` (longest matching mount point).
    static func fileSystem(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return "unknown" }
        var best: (point: String, description: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1])
            let matches = point == "/" || path == point || path.hasPrefix(point + "/")
            if matches, point.count > (best?.point.count ?? -1) {
                best = (point, "\(fields[2]) on \(point) (\(fields[0]))")
            }
        }
        return best?.description ?? "unknown"
    }
}

/// Asks the kernel to drop the cached pages of a database's files (`posix_fadvise(DONTNEED)` after `fsync`), so
/// the next open reads from the disk. Best effort; needs no privileges. Returns whether every file was handled.
@discardableResult
func dropPageCache(forDatabaseAt path: String) -> Bool {
    var ok = true
    for suffix in ["", "-wal", "-shm"] {
        let file = path + suffix
        guard FileManager.default.fileExists(atPath: file) else { continue }
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else {
            ok = false
            continue
        }
        if fsync(fd) != 0 { ok = false }
        #if os(Linux)
        if posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) != 0 { ok = false }
        #else
        ok = false
        #endif
        close(fd)
    }
    return ok
}
