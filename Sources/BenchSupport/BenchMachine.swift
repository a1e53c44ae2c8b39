import Foundation

/// The machine a bench runs on, for the header of its output: processors, model, kernel, load average.
///
/// ```swift
/// print("machine: \(BenchMachine.description); load average \(BenchMachine.loadAverage)")
/// ```
public enum BenchMachine {
    /// `2 × Intel(R) Xeon(R) Processor, Linux 6.18.44, 23.5 GiB RAM`.
    public static var description: String {
        let model =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let memory = String(format: "%.1f GiB RAM", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
        return "\(ProcessInfo.processInfo.activeProcessorCount) × \(model), Linux \(kernel), \(memory)"
    }

    /// The three load averages of `/proc/loadavg`: `1.44 4.65 4.23`.
    public static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
            .joined(separator: " ")
    }

    /// The file system type a path lives on (the longest matching mount point of `/proc/self/mounts`): `ext4 on /`.
    public static func fileSystem(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return "?" }
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1])
            if point == "/" || path == point || path.hasPrefix(point + "/"), point.count > (best?.point.count ?? -1) {
                best = (point, "\(fields[2]) on \(point)")
            }
        }
        return best?.type ?? "?"
    }
}
