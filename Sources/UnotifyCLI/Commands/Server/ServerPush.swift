import ArgumentParser
import Foundation
import NotificationEngine

/// `unotify server push`: sends a push (docs/push-service.md) to devices, an account, an alias, a tag expression or
/// every device, and prints its message identifier.
struct ServerPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract:
            "Send a push to devices, an account, an alias, a tag expression or all devices; print its message id.",
        discussion: """
            Give exactly one target: --device (repeat for several), --account, --alias, --tag-expression (the API's \
            tag expression as JSON, e.g. '{"and": [{"tag": "news"}, {"not": {"tag": "muted"}}]}') or --all. The push \
            is stored at once and the workers fan it out; follow it with unotify server stats MESSAGE_ID. \
            --local-time HH:MM is that time in each device's own zone, on the next day (here) that has not passed \
            it yet; devices whose zone is already past it get the push at once.
            """)

    @OptionGroup var options: ServerOptions
    @Option(name: .customLong("device"), help: "A device identifier (repeat for several).") var devices: [String] = []
    @Option(help: "Every device of this account.") var account: String?
    @Option(help: "Every device with this alias.") var alias: String?
    @Option(help: "A tag expression as JSON, e.g. '{\"tag\": \"news\"}'.") var tagExpression: String?
    @Flag(help: "Every active device.") var all = false
    @Option var title: String?
    @Option var subtitle: String?
    @Option var body: String?
    @Option var badge: Int?
    @Option(help: "default, none, or a sound file's name.") var sound: String?
    @Option(help: "The category identifier.") var category: String?
    @Option(help: "The thread identifier.") var thread: String?
    @Option(name: .customLong("extra"), help: "A custom key of userInfo, KEY=VALUE (repeat for several).")
    var extras: [String] = []
    @Option(help: "Send at this ISO 8601 instant, e.g. 2026-11-27T08:00:00Z (default: at once).") var at: String?
    @Option(help: "Send at HH:MM (or YYYY-MM-DDTHH:MM) in each device's own zone.") var localTime: String?
    @Option(help: "Send to nobody after this many seconds, and tell APNs to keep it no longer.") var expiresIn: Int?
    @Option(help: "The apns-collapse-id (at most 64 bytes; default push:<message id>).") var collapseId: String?
    @Flag(help: "Set mutable-content: the device's notification service extension may change it first.")
    var mutableContent = false
    @Flag(help: "Set content-available: wake the app. Without --title, --subtitle or --body: a background push.")
    var contentAvailable = false

    func validate() throws {
        let targets = [!devices.isEmpty, account != nil, alias != nil, tagExpression != nil, all].filter { $0 }.count
        guard targets == 1 else {
            throw ValidationError("give exactly one target: --device, --account, --alias, --tag-expression or --all")
        }
        if at != nil, localTime != nil { throw ValidationError("give --at or --local-time, not both") }
        if [title, subtitle, body].allSatisfy({ $0 == nil }) && !contentAvailable {
            throw ValidationError("a push needs --title, --subtitle or --body (or --content-available alone)")
        }
        if let expiresIn, expiresIn <= 0 { throw ValidationError("--expires-in takes a number of seconds above 0") }
        for extra in extras where !extra.contains("=") || extra.hasPrefix("=") {
            throw ValidationError("--extra takes KEY=VALUE, not '\(extra)'")
        }
    }

    /// The push object `POST /v1/pushes` takes.
    ///
    /// - Parameter clock: Reads now for `--expires-in` and the day of `--local-time HH:MM`.
    func pushObject(clock: any NotificationClock) throws -> [String: Any] {
        var object: [String: Any] = ["target": try target()]
        let fields: [(String, String?)] = [
            ("title", title), ("subtitle", subtitle), ("body", body), ("sound", sound), ("category", category),
            ("thread", thread), ("sendAt", at), ("collapseId", collapseId),
        ]
        for (name, value) in fields { if let value { object[name] = value } }
        if let badge { object["badge"] = badge }
        if mutableContent { object["mutableContent"] = true }
        if contentAvailable { object["contentAvailable"] = true }
        if !extras.isEmpty {
            var values: [String: String] = [:]
            for extra in extras {
                let parts = extra.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                values[String(parts[0])] = String(parts[1])
            }
            object["extras"] = values
        }
        if let localTime {
            object["localTime"] = try Self.localTime(localTime, now: clock.now, calendar: clock.calendar)
        }
        if let expiresIn {
            object["expiresAt"] = clock.now.addingTimeInterval(TimeInterval(expiresIn)).ISO8601Format()
        }
        return object
    }

    /// The target object: one of `devices`, `account`, `alias`, `tag`, `all`.
    func target() throws -> [String: Any] {
        if !devices.isEmpty { return ["devices": devices] }
        if let account { return ["account": account] }
        if let alias { return ["alias": alias] }
        if let tagExpression {
            guard let expression = try? JSONSerialization.jsonObject(with: Data(tagExpression.utf8)) as? [String: Any]
            else {
                throw CLIError(
                    "--tag-expression must be a JSON object such as '{\"tag\": \"news\"}', not '\(tagExpression)'")
            }
            return ["tag": expression]
        }
        return ["all": true]
    }

    /// `YYYY-MM-DDTHH:MM` for the API: given as is, or `HH:MM` on the day of `now` in `calendar` when that time has
    /// not passed there yet, else on the next day.
    ///
    /// ```swift
    /// try ServerPush.localTime("09:00", now: now, calendar: calendar)  // "2026-11-27T09:00" at 10:00 on the 26th
    /// ```
    ///
    /// - Throws: ``CLIError`` for anything else.
    static func localTime(_ text: String, now: Date, calendar: Calendar) throws -> String {
        if text.contains("T") { return text }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0...23).contains(hour),
            (0...59).contains(minute)
        else { throw CLIError("--local-time takes HH:MM or YYYY-MM-DDTHH:MM, not '\(text)'") }
        var day = calendar.dateComponents([.year, .month, .day], from: now)
        day.hour = hour
        day.minute = minute
        if let today = calendar.date(from: day), today <= now,
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: today)
        {
            day = calendar.dateComponents([.year, .month, .day], from: tomorrow)
        }
        guard let year = day.year, let month = day.month, let date = day.day else {
            throw CLIError("--local-time \(text): cannot find the day")
        }
        return String(format: "%04d-%02d-%02dT%02d:%02d", year, month, date, hour, minute)
    }

    func run() async throws {
        try await reportingErrors {
            let client = try options.client()
            let answer = try await client.send(
                "POST", "v1/pushes", body: try pushObject(clock: SystemNotificationClock()))
            if options.json {
                try CLIOutput.printJSON(answer.json ?? [:])
                return
            }
            guard let id = (answer.json as? [String: Any])?["messageId"] as? String else {
                throw CLIError("the server's answer has no message id")
            }
            CLIOutput.print(id)
        }
    }
}
