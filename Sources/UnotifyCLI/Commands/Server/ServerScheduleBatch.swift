import ArgumentParser
import Foundation

/// `unotify server schedule-batch`: schedules the requests of a JSON Lines file through `POST /v1/request-batches`.
///
/// ```sh
/// unotify server schedule-batch requests.jsonl --token-file api.token
/// ```
/// where each line is `{"device": "paris", "request": {"identifier": "tea", "title": "Tea", "trigger": {...}}}`.
struct ServerScheduleBatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule-batch",
        abstract: "Schedule many requests from a JSON Lines file: one {\"device\": ..., \"request\": {...}} per line.",
        discussion: """
            Every line is checked before anything is sent: a line that is not a JSON object with a device and a \
            request object is reported with its number, and nothing is scheduled. Then the lines go to the API in \
            batches of --batch-size (POST /v1/request-batches). A request the server refuses (an unknown or inactive \
            device, a refused trigger) is reported with its line number and the others are stored; a batch the server \
            refuses whole stops the command, the batches before it stored. With --atomic the whole file goes in \
            one call, all of it or nothing: every request is checked, then all are stored in one transaction; one \
            refused request (reported with its line number) or a store failure leaves nothing stored.
            """)

    @OptionGroup var options: ServerOptions
    @Argument(help: "The JSON Lines file, or - for standard input.") var file: String
    @Option(help: "Requests per call of the API (1 to 5000).") var batchSize = 1_000
    @Flag(
        help: """
            All or nothing: send the whole file in one call (at most --batch-size lines) and store every request or \
            none.
            """)
    var atomic = false

    func validate() throws {
        guard (1...5_000).contains(batchSize) else {
            throw ValidationError("--batch-size takes 1 to 5000, not \(batchSize)")
        }
    }

    /// One line of the file that holds a request: its number (from 1) and the batch item it becomes.
    struct Line {
        var number: Int
        var device: String
        var request: [String: Any]
    }

    /// The file's requests, or the problems of its bad lines (blank lines are skipped).
    static func parse(_ data: Data) -> (lines: [Line], problems: [String]) {
        var lines: [Line] = []
        var problems: [String] = []
        for (offset, raw) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            guard raw.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { continue }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(raw))) as? [String: Any] else {
                problems.append("line \(number): not a JSON object")
                continue
            }
            let unknown = Set(object.keys).subtracting(["device", "request"]).sorted()
            guard unknown.isEmpty else {
                problems.append("line \(number): unknown field \(unknown.joined(separator: ", ")) (a line has device and request)")
                continue
            }
            guard let device = object["device"] as? String, !device.isEmpty else {
                problems.append("line \(number): \"device\" must be a device identifier")
                continue
            }
            guard let request = object["request"] as? [String: Any] else {
                problems.append("line \(number): \"request\" must be an object (the API's request fields)")
                continue
            }
            lines.append(Line(number: number, device: device, request: request))
        }
        return (lines, problems)
    }

    func run() async throws {
        try await reportingErrors {
            let data: Data
            do {
                data = file == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError("cannot read \(file): \(error.localizedDescription)")
            }
            let (lines, problems) = Self.parse(data)
            guard problems.isEmpty else {
                for problem in problems { CLIContext.say(problem) }
                throw CLIError("\(problems.count) bad line(s) in \(file): nothing scheduled")
            }
            guard !lines.isEmpty else { throw CLIError("\(file) holds no requests") }
            if atomic, lines.count > batchSize {
                throw CLIError(
                    "--atomic sends the file in one call: \(lines.count) requests are more than --batch-size "
                        + "\(batchSize) (raise it, up to the server's limit): nothing scheduled")
            }
            let client = try options.client()
            if atomic {
                try await scheduleAll(lines, client)
                return
            }
            var scheduled = 0
            var failures: [[String: Any]] = []
            for start in stride(from: 0, to: lines.count, by: batchSize) {
                let batch = lines[start..<min(start + batchSize, lines.count)]
                let answer: ServerAPIClient.Answer
                do {
                    answer = try await client.send(
                        "POST", "v1/request-batches",
                        body: ["requests": batch.map { ["device": $0.device, "request": $0.request] }])
                } catch {
                    throw CLIError(
                        "lines \(batch.first!.number)-\(batch.last!.number) refused (\(scheduled) scheduled before "
                            + "them, nothing after): \(error)")
                }
                let result = answer.json as? [String: Any] ?? [:]
                scheduled += result["scheduled"] as? Int ?? 0
                for var failure in result["failed"] as? [[String: Any]] ?? [] {
                    if let index = failure["index"] as? Int, batch.indices.contains(start + index) {
                        failure["line"] = lines[start + index].number
                    }
                    failure["index"] = nil
                    failures.append(failure)
                }
            }
            if options.json {
                try CLIOutput.printJSON(["scheduled": scheduled, "failed": failures])
            } else {
                CLIOutput.print("scheduled \(scheduled) of \(lines.count) requests")
                printRefused(failures)
            }
            if !failures.isEmpty { throw ExitCode(1) }
        }
    }

    /// Prints each refused request, one line each: its line number, device, identifier, reason and detail.
    private func printRefused(_ failures: [[String: Any]]) {
        for failure in failures {
            let line = failure["line"].map { "line \($0)" } ?? "a line"
            CLIOutput.print(
                "  \(line): \(failure["device"] as? String ?? "?") \(failure["identifier"] as? String ?? "?"): "
                    + "\(failure["reason"] as? String ?? "?") \(failure["detail"] as? String ?? "")")
        }
    }

    /// Sends every line in one all-or-nothing call, and reports what was stored or why nothing was.
    private func scheduleAll(_ lines: [Line], _ client: ServerAPIClient) async throws {
        let body: [String: Any] = [
            "requests": lines.map { ["device": $0.device, "request": $0.request] }, "atomic": true,
        ]
        let answer = try await client.send("POST", "v1/request-batches", body: body, accepting: [200, 422])
        let result = answer.json as? [String: Any] ?? [:]
        var failures: [[String: Any]] = []
        for var failure in result["failed"] as? [[String: Any]] ?? [] {
            if let index = failure["index"] as? Int, lines.indices.contains(index) {
                failure["line"] = lines[index].number
            }
            failure["index"] = nil
            failures.append(failure)
        }
        let scheduled = result["scheduled"] as? Int ?? 0
        if options.json {
            try CLIOutput.printJSON(["atomic": true, "scheduled": scheduled, "failed": failures])
        } else if failures.isEmpty {
            CLIOutput.print("scheduled all \(scheduled) requests (atomic)")
        } else {
            CLIOutput.print("nothing scheduled (atomic): \(failures.count) of \(lines.count) requests refused")
            printRefused(failures)
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}
