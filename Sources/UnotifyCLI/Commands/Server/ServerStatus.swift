import ArgumentParser
import Foundation

/// `unotify server status`: the cluster's figures from the database and the answering worker's own.
struct ServerStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the cluster's pending requests, backlog, deliveries and lateness, and the worker's APNs answers.")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        try await reportingErrors {
            let answer = try await options.client().send("GET", "v1/status")
            guard let object = answer.json as? [String: Any], let cluster = object["cluster"] as? [String: Any],
                let worker = object["worker"] as? [String: Any]
            else { throw CLIError("the server's status is not what this version of unotify reads") }
            if options.json {
                try CLIOutput.printJSON(object)
                return
            }
            let window = Int(cluster["windowSeconds"] as? Double ?? 60)
            let devices = cluster["devices"] as? [String: Any] ?? [:]
            CLIOutput.print(
                """
                cluster (the database, \(cluster["date"] as? String ?? "now"))
                  devices        \(Self.int(devices["active"])) active, \(Self.int(devices["inactive"])) inactive
                  pending        \(Self.int(cluster["pending"]))
                  due backlog    \(Self.int(cluster["dueBacklog"])) (claimed now: \(Self.int(cluster["claimed"])))
                  deliveries     \(Self.rate(cluster["deliveriesPerSecond"])) /s over the last \(window) s
                  lateness       \(Self.lateness(cluster))
                  outcomes       \(Self.counts(cluster["outcomes"]))
                  dead letters   \(Self.counts(cluster["deadLetters"]))
                worker \(worker["name"] as? String ?? "?") (this process, since it started)
                  deliveries     \(Self.rate(worker["deliveriesPerSecond"])) /s over the last minute
                  lateness       \(Self.lateness(worker))
                  APNs answers   \(Self.counts(worker["answers"]))
                """)
        }
    }

    static func int(_ value: Any?) -> Int { (value as? NSNumber)?.intValue ?? 0 }

    static func rate(_ value: Any?) -> String { String(format: "%.2f", (value as? NSNumber)?.doubleValue ?? 0) }

    /// `p50 4.1 ms, p99 12.0 ms`, or `no deliveries` without figures.
    static func lateness(_ object: [String: Any]) -> String {
        guard let p50 = (object["latenessP50"] as? NSNumber)?.doubleValue,
            let p99 = (object["latenessP99"] as? NSNumber)?.doubleValue
        else { return "no deliveries" }
        return "p50 \(milliseconds(p50)), p99 \(milliseconds(p99))"
    }

    static func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    /// `Success 120, BadDeviceToken 2`, largest first, or `none`.
    static func counts(_ value: Any?) -> String {
        let counts = (value as? [String: Any] ?? [:]).map { ($0.key, int($0.value)) }
        guard !counts.isEmpty else { return "none" }
        return counts.sorted { ($0.1, $1.0) > ($1.1, $0.0) }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
}
