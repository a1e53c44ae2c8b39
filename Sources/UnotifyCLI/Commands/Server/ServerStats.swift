import ArgumentParser
import Foundation

/// `unotify server stats`: a push's statistics (or those of every push to one topic's devices) as a table.
struct ServerStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a push's statistics (targeted, sent, accepted, failed by reason, receipts, by hour).",
        discussion: """
            Give a message id (printed by unotify server push), or --topic TOPIC for the sums over every push to \
            that topic's devices (counts, receipts and hours; nothing is cancelled per topic). --json prints the \
            API's object as it is.
            """)

    @OptionGroup var options: ServerOptions
    @Argument(help: "The push's message id.") var messageID: String?
    @Option(help: "The APNs topic (bundle identifier) whose devices' pushes are summed.") var topic: String?

    func validate() throws {
        guard (messageID == nil) != (topic == nil) else {
            throw ValidationError("give a message id or --topic, not both")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let client = try options.client()
            let path =
                if let messageID { "v1/pushes/\(ServerAPIClient.segment(messageID))" } else {
                    "v1/topics/\(ServerAPIClient.segment(topic ?? ""))/statistics"
                }
            guard let object = try await client.send("GET", path).json as? [String: Any] else {
                throw CLIError("the server's answer is not a JSON object")
            }
            if options.json {
                try CLIOutput.printJSON(object)
                return
            }
            let statistics: [String: Any]
            if messageID != nil {
                guard let inner = object["statistics"] as? [String: Any] else {
                    throw CLIError("the server's answer has no statistics")
                }
                statistics = inner
                CLIOutput.print(
                    "push \(object["messageId"] as? String ?? "?")  \(object["state"] as? String ?? "?")  "
                        + "target \(object["target"] as? String ?? "?")  created \(object["createdAt"] as? String ?? "?")"
                )
            } else {
                statistics = object
                CLIOutput.print("topic \(topic ?? "")  every push to its devices")
            }
            CLIOutput.print(Self.table(statistics))
        }
    }

    /// The statistics as aligned lines: counts, failures by reason, receipts, actions, and a table by hour.
    static func table(_ statistics: [String: Any]) -> String {
        let int = ServerStatus.int
        let rows: [(String, String)] = [
            ("targeted", "\(int(statistics["targeted"]))"),
            ("sent", "\(int(statistics["sent"]))"),
            ("accepted", "\(int(statistics["accepted"]))"),
            ("failed", "\(int(statistics["failed"]))"),
            ("  by reason", ServerStatus.counts(statistics["failedByReason"])),
            ("pending", "\(int(statistics["pending"]))"),
            ("cancelled", "\(int(statistics["cancelled"]))"),
            ("received", "\(int(statistics["received"]))"),
            ("opened", "\(int(statistics["opened"]))"),
            ("dismissed", "\(int(statistics["dismissed"]))"),
            ("actions", ServerStatus.counts(statistics["actions"])),
        ]
        var lines = rows.map { "  " + $0.0.padding(toLength: 13, withPad: " ", startingAt: 0) + $0.1 }
        let hours = statistics["byHour"] as? [[String: Any]] ?? []
        let columns = ["accepted", "failed", "received", "opened"]
        lines.append(
            "  " + "hour (UTC)".padding(toLength: 22, withPad: " ", startingAt: 0)
                + columns.map { $0.leftPadded(to: 10) }.joined())
        if hours.isEmpty { lines.append("  (nothing answered or reported yet)") }
        for hour in hours {
            lines.append(
                "  " + (hour["hour"] as? String ?? "?").padding(toLength: 22, withPad: " ", startingAt: 0)
                    + columns.map { "\(int(hour[$0]))".leftPadded(to: 10) }.joined())
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The string with spaces before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
