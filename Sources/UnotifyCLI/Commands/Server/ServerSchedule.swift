import ArgumentParser
import Foundation

/// `unotify server schedule`: schedules one request for one device, many, or an audience (an account, an alias, a tag
/// expression, every device).
struct ServerSchedule: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Schedule a request for devices or an audience (calendar components fire in each device's zone).",
        discussion: """
            Give the request with options (--id, --title, --body, and --in SECONDS or calendar components such as \
            --weekday 2 --hour 9), or as the API's JSON object with --request FILE (- for standard input). Calendar \
            components without a zone float: "--hour 9" is 9:00 where each device is. Give the devices with --device \
            (repeat for several), or an audience read when the command runs: --account, --alias, --tag-expression \
            (the API's tag expression as JSON) or --all (every active device). With --device and --atomic the \
            request is stored for every device or for none (POST /v1/requests with "atomic": true).
            """)

    @OptionGroup var options: ServerOptions
    @Option(name: .customLong("device"), help: "A device identifier (repeat for several).") var devices: [String] = []
    @Option(help: "Every device of this account.") var account: String?
    @Option(help: "Every device with this alias.") var alias: String?
    @Option(help: "A tag expression as JSON, e.g. '{\"tag\": \"news\"}'.") var tagExpression: String?
    @Flag(help: "Every active device.") var all = false
    @Option(help: "The request as the API's JSON object, from a file or - for standard input.") var request: String?
    @Option(help: "The request's identifier (a new one replaces the device's request of that identifier).")
    var id: String?
    @Option var title: String?
    @Option var subtitle: String?
    @Option var body: String?
    @Option var badge: Int?
    @Option(help: "default, none, or a sound file's name.") var sound: String?
    @Option(help: "The category identifier.") var category: String?
    @Option(help: "The thread identifier.") var thread: String?
    @Option(name: .customLong("in"), help: "Fire after this many seconds.") var seconds: Double?
    @Option var month: Int?
    @Option var day: Int?
    @Option(help: "1 is Sunday, 2 Monday, ... 7 Saturday.") var weekday: Int?
    @Option var hour: Int?
    @Option var minute: Int?
    @Flag(help: "Repeat (every --in seconds, or whenever the components match).") var repeats = false
    @Flag(help: "All or nothing: store the request for every --device or, when one refuses it, for none.")
    var atomic = false

    func validate() throws {
        let targets = [!devices.isEmpty, account != nil, alias != nil, tagExpression != nil, all].filter { $0 }.count
        guard targets == 1 else {
            throw ValidationError("give the devices: --device (repeat for several), --account, --alias, --tag-expression or --all")
        }
        if let tagExpression, (try? JSONSerialization.jsonObject(with: Data(tagExpression.utf8))) as? [String: Any] == nil {
            throw ValidationError("--tag-expression takes a JSON object, e.g. '{\"tag\": \"news\"}'")
        }
        if atomic, devices.isEmpty { throw ValidationError("--atomic takes --device, not an audience") }
        if request != nil, id != nil { throw ValidationError("give --request or --id with fields, not both") }
        if request == nil, id == nil { throw ValidationError("give --id (with --title, --body ...) or --request FILE") }
        if seconds != nil, components != nil { throw ValidationError("give --in or calendar components, not both") }
    }

    /// The calendar components given, or `nil` for none.
    var components: [String: Int]? {
        let given = [("month", month), ("day", day), ("weekday", weekday), ("hour", hour), ("minute", minute)]
            .compactMap { name, value in value.map { (name, $0) } }
        return given.isEmpty ? nil : Dictionary(uniqueKeysWithValues: given)
    }

    /// The request object the API takes.
    func requestObject() throws -> [String: Any] {
        if let request {
            let data: Data
            do {
                data = request == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile()
                    : try Data(contentsOf: URL(fileURLWithPath: request))
            } catch {
                throw CLIError("cannot read --request \(request): \(error.localizedDescription)")
            }
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                throw CLIError("--request \(request) must hold one JSON object (the API's request fields)")
            }
            return object
        }
        var object: [String: Any] = ["identifier": id ?? ""]
        let fields: [(String, String?)] = [
            ("title", title), ("subtitle", subtitle), ("body", body), ("sound", sound),
            ("categoryIdentifier", category), ("threadIdentifier", thread),
        ]
        for (name, value) in fields { if let value { object[name] = value } }
        if let badge { object["badge"] = badge }
        if let seconds {
            object["trigger"] = ["timeInterval": seconds, "repeats": repeats]
        } else if let components {
            object["trigger"] = ["calendar": components, "repeats": repeats]
        }
        return object
    }

    func run() async throws {
        try await reportingErrors {
            let client = try options.client()
            let object = try requestObject()
            if let target = try audience() {
                let answer = try await client.send("POST", "v1/requests", body: ["target": target, "request": object])
                try report(audience: answer, identifier: object["identifier"] as? String ?? "?")
                return
            }
            if atomic {
                try await scheduleAll(object, client)
                return
            }
            let answer: ServerAPIClient.Answer =
                if devices.count == 1 {
                    try await client.send(
                        "POST", "v1/devices/\(ServerAPIClient.segment(devices[0]))/requests", body: object)
                } else {
                    try await client.send("POST", "v1/requests", body: ["devices": devices, "request": object])
                }
            if options.json {
                try CLIOutput.printJSON(answer.json ?? [:])
                return
            }
            let identifier = object["identifier"] as? String ?? "?"
            guard devices.count > 1, let result = answer.json as? [String: Any] else {
                let next = (answer.json as? [String: Any])?["nextFireDate"] as? String
                CLIOutput.print("scheduled \(identifier) for \(devices[0])" + (next.map { ", next fire \($0)" } ?? ""))
                return
            }
            let scheduled = result["scheduled"] as? [String] ?? []
            CLIOutput.print("scheduled \(identifier) for \(scheduled.count) of \(Set(devices).count) devices")
            let failed = result["failed"] as? [String: Any] ?? [:]
            for (device, failure) in failed.sorted(by: { $0.key < $1.key }) {
                let failure = failure as? [String: Any] ?? [:]
                CLIOutput.print(
                    "  \(device): \(failure["reason"] as? String ?? "?") \(failure["detail"] as? String ?? "")")
            }
            if !failed.isEmpty { throw ExitCode(1) }
        }
    }

    /// Sends the request for every device in one all-or-nothing call, and reports what was stored or why nothing was.
    private func scheduleAll(_ object: [String: Any], _ client: ServerAPIClient) async throws {
        let answer = try await client.send(
            "POST", "v1/requests", body: ["devices": devices, "request": object, "atomic": true], accepting: [422])
        if options.json { try CLIOutput.printJSON(answer.json ?? [:]) }
        let result = answer.json as? [String: Any] ?? [:]
        let failed = result["failed"] as? [String: Any] ?? [:]
        let identifier = object["identifier"] as? String ?? "?"
        if !options.json {
            if failed.isEmpty {
                CLIOutput.print("scheduled \(identifier) for all \(Set(devices).count) devices (atomic)")
            } else {
                CLIOutput.print(
                    "nothing scheduled (atomic): refused for \(failed.count) of \(Set(devices).count) devices")
                for (device, failure) in failed.sorted(by: { $0.key < $1.key }) {
                    let failure = failure as? [String: Any] ?? [:]
                    CLIOutput.print(
                        "  \(device): \(failure["reason"] as? String ?? "?") \(failure["detail"] as? String ?? "")")
                }
            }
        }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}

extension ServerSchedule {
    /// The API's target for --account, --alias, --tag-expression or --all; `nil` for --device.
    func audience() throws -> [String: Any]? {
        if let account { return ["account": account] }
        if let alias { return ["alias": alias] }
        if all { return ["all": true] }
        if let tagExpression {
            return ["tag": try JSONSerialization.jsonObject(with: Data(tagExpression.utf8))]
        }
        return nil
    }

    /// Prints what scheduling for an audience did: the count, then each failed device the API named.
    func report(audience answer: ServerAPIClient.Answer, identifier: String) throws {
        let result = answer.json as? [String: Any] ?? [:]
        if options.json {
            try CLIOutput.printJSON(result)
        } else {
            let failedCount = result["failedCount"] as? Int ?? 0
            CLIOutput.print(
                "scheduled \(identifier) for \(result["scheduled"] as? Int ?? 0) devices"
                    + (failedCount > 0 ? ", failed for \(failedCount)" : ""))
            let failed = result["failed"] as? [String: Any] ?? [:]
            for (device, failure) in failed.sorted(by: { $0.key < $1.key }) {
                let failure = failure as? [String: Any] ?? [:]
                CLIOutput.print(
                    "  \(device): \(failure["reason"] as? String ?? "?") \(failure["detail"] as? String ?? "")")
            }
        }
        if (result["failedCount"] as? Int ?? 0) > 0 { throw ExitCode(1) }
    }
}

/// `unotify server list`: a device's pending requests.
struct ServerList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List a device's pending requests and when each fires next.")

    @OptionGroup var options: ServerOptions
    @Argument(help: "The device's identifier.") var device: String

    func run() async throws {
        try await reportingErrors {
            let answer = try await options.client().send(
                "GET", "v1/devices/\(ServerAPIClient.segment(device))/requests")
            let requests = (answer.json as? [String: Any])?["requests"] as? [[String: Any]] ?? []
            if options.json {
                try CLIOutput.printJSON(requests)
                return
            }
            if requests.isEmpty { CLIOutput.print("no pending requests for \(device)") }
            for request in requests {
                let next = request["nextFireDate"] as? String ?? "no next fire"
                CLIOutput.print(
                    "\(request["identifier"] as? String ?? "?")  \(next)  \(request["title"] as? String ?? "")")
            }
        }
    }
}

/// `unotify server cancel`: cancels one of a device's pending requests (a repeating one stops repeating).
struct ServerCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel one of a device's pending requests (repeats stop too).")

    @OptionGroup var options: ServerOptions
    @Argument(help: "The device's identifier.") var device: String
    @Argument(help: "The request's identifier.") var identifier: String

    func run() async throws {
        try await reportingErrors {
            _ = try await options.client().send(
                "DELETE",
                "v1/devices/\(ServerAPIClient.segment(device))/requests/\(ServerAPIClient.segment(identifier))")
            if !options.json { CLIOutput.print("cancelled \(identifier) for \(device)") }
        }
    }
}
