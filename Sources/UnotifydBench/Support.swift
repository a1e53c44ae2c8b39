import BenchSupport
import Foundation
import NotificationEngine
import NotificationModel

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Time

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Seconds spent in `body`.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, start.duration(to: .now).seconds)
}

func timedAsync<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try await body()
    return (value, start.duration(to: .now).seconds)
}

// MARK: - Statistics and formatting

/// A figure of the final table: what was measured, against what, and how it was done.
struct Figure: Sendable {
    var number: String
    var measure: String
    var result: String
    var baseline: String
    var ratio: String
}

/// When the bench started, for the progress lines.
let benchStart = ContinuousClock.now

/// Progress goes to standard error, stamped with the seconds since the start; figures to standard output.
func progress(_ message: String) {
    let stamp = String(format: "%6.1f s", benchStart.duration(to: .now).seconds)
    FileHandle.standardError.write(Data("· \(stamp)  \(message)\n".utf8))
}

func say(_ message: String = "") {
    FileHandle.standardOutput.write(Data("\(message)\n".utf8))
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Temporary folders

/// A folder made with `mkdtemp` under `parent`, removed by ``remove()``.
struct TemporaryFolder: Sendable {
    let path: String

    init(in parent: String = "/tmp", prefix: String = "unotifyd-bench") throws {
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a temporary folder in \(parent): errno \(errno)")
        }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The size of an SQLite store with its WAL.
func storeBytes(_ path: String) -> Int64 {
    ["", "-wal"].reduce(Int64(0)) { total, suffix in
        let size =
            (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)?.int64Value ?? 0
        return total + size
    }
}

// MARK: - /proc

/// Context switches of a process: voluntary + nonvoluntary summed over `/proc/<pid>/task/*/status`.
struct SwitchSample: Sendable {
    struct Thread: Sendable {
        var name: String
        var voluntary: Int
        var nonvoluntary: Int
        var total: Int { voluntary + nonvoluntary }
    }

    var threads: [Int: Thread] = [:]

    var voluntary: Int { threads.values.reduce(0) { $0 + $1.voluntary } }
    var nonvoluntary: Int { threads.values.reduce(0) { $0 + $1.nonvoluntary } }
    var total: Int { voluntary + nonvoluntary }

    static func take(pid: Int32) -> SwitchSample {
        var sample = SwitchSample()
        let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for text in tids {
            guard let tid = Int(text) else { continue }
            let fields = ProcFS.status("/proc/\(pid)/task/\(tid)/status")
            guard !fields.isEmpty else { continue }
            sample.threads[tid] = Thread(
                name: fields["Name"] ?? "?", voluntary: Int(fields["voluntary_ctxt_switches"] ?? "") ?? 0,
                nonvoluntary: Int(fields["nonvoluntary_ctxt_switches"] ?? "") ?? 0)
        }
        return sample
    }

    /// The switches since `before`, per thread (threads born in between count from zero), busiest first.
    func since(_ before: SwitchSample) -> (voluntary: Int, nonvoluntary: Int, busiest: [String]) {
        var voluntary = 0
        var nonvoluntary = 0
        var perThread: [(String, Int, Int)] = []
        for (tid, thread) in threads {
            let old = before.threads[tid]
            let v = thread.voluntary - (old?.voluntary ?? 0)
            let nv = thread.nonvoluntary - (old?.nonvoluntary ?? 0)
            voluntary += v
            nonvoluntary += nv
            if v + nv > 0 { perThread.append(("\(thread.name)#\(tid)", v, nv)) }
        }
        let busiest = perThread.sorted { $0.1 + $0.2 > $1.1 + $1.2 }.prefix(6).map { "\($0.0) \($0.1)v/\($0.2)nv" }
        return (voluntary, nonvoluntary, busiest)
    }
}

enum ProcFS {
    /// The `Key: value` lines of a `status` file.
    static func status(_ path: String) -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// A `kB` field of `/proc/<pid>/status` (`VmRSS`, `VmHWM`), in KiB.
    static func kibibytes(_ field: String, pid: Int32) -> Int? {
        status("/proc/\(pid)/status")[field].flatMap { Int($0.split(separator: " ").first ?? "") }
    }

    static func threadCount(pid: Int32) -> Int {
        Int(status("/proc/\(pid)/status")["Threads"] ?? "") ?? 0
    }

    /// User + system CPU seconds of a process, from `/proc/<pid>/stat`.
    static func cpuSeconds(pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return .nan }
        // Fields after the command name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Context switches (voluntary and involuntary) of every live thread of a process, from
    /// `/proc/<pid>/task/*/status`: threads that already exited are not counted.
    static func contextSwitches(pid: Int32) -> Int {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return 0 }
        return threads.reduce(0) { total, thread in
            let fields = status("/proc/\(pid)/task/\(thread)/status")
            return total + (Int(fields["voluntary_ctxt_switches"] ?? "") ?? 0)
                + (Int(fields["nonvoluntary_ctxt_switches"] ?? "") ?? 0)
        }
    }

    /// Context switches of this process, every thread included (exited ones too), from `getrusage`.
    static var ownContextSwitches: Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    /// Resets this process's peak RSS (`VmHWM`) to the current RSS (Linux ≥ 4.0); best effort.
    static func resetPeakRSS() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Processors, model, kernel and memory (``BenchMachine``, shared with `unotify-server-bench`).
    static var machine: String { BenchMachine.description }

    static var loadAverage: String { BenchMachine.loadAverage }

    /// The file system type a path lives on (longest matching mount point of `/proc/self/mounts`).
    static func fileSystem(of path: String) -> String { BenchMachine.fileSystem(of: path) }
}

// MARK: - The presenter that does nothing

struct NullPresenter: NotificationPresenter {
    var name: String { "null" }
    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {}
    func withdraw(appID: String, identifiers: [String]) async {}
    func badgeDidChange(appID: String, count: Int) async {}
}
