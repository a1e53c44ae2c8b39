import ArgumentParser
import Foundation
import NotificationEngine
import NotificationModel

/// `unotify apns`: the APNs endpoint as a sandbox for push providers.
struct APNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns",
        abstract: "See what the APNs endpoint received, and make it fail on purpose to test a provider.",
        subcommands: [APNsLog.self, APNsFault.self])
}

/// `unotify apns fault`: the endpoint's fault rules, kept in the store.
struct APNsFault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault",
        abstract: "Add, list or clear the APNs endpoint's fault rules.",
        discussion: """
            A rule answers one of Apple's reasons (TooManyRequests, ServiceUnavailable, Unregistered, ...) and/or \
            waits before answering, holds requests unanswered (--hold), closes connections after some requests \
            (--close-after), or shuts the endpoint down (--shutdown), for the requests with its topic and device \
            token, or a seeded fraction of them. Rules live in the store, so the running unotifyd applies them from \
            its next request on. The first matching rule that picks a request decides.
            """,
        subcommands: [APNsFaultAdd.self, APNsFaultList.self, APNsFaultClear.self, APNsFaultLoad.self],
        defaultSubcommand: APNsFaultList.self)
}

struct APNsFaultAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a fault rule (or replace the one with its id).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The reason to answer, as Apple names it (TooManyRequests, ServiceUnavailable, Unregistered, ...).")
    var reason: String?
    @Option(help: "Wait this long before answering: 250ms, 2s, 1.5.")
    var delay: String?
    @Flag(help: "Never answer the requests: their streams stay open until the connection closes.")
    var hold = false
    @Option(
        name: .customLong("close-after"),
        help: "Close each connection (GOAWAY with --reason, Shutdown by default) once it had this many matching requests.")
    var closeAfter: Int?
    @Flag(help: "Answer 503 Shutdown with a GOAWAY, and close every new connection while the rule exists.")
    var shutdown = false
    @Option(help: "Only requests with this apns-topic.")
    var topic: String?
    @Option(help: "Only requests to this device token (64 hex digits).")
    var token: String?
    @Option(help: "The share of matching requests the rule applies to, above 0 and at most 1.")
    var fraction: Double = 1
    @Option(help: "Seeds the choice of requests when --fraction is below 1.")
    var seed: UInt64 = 0
    @Option(help: "The rule's name (default: rule-<n>).")
    var id: String?

    func run() async throws {
        try await reportingErrors {
            let store = try openStore(global)
            var rules = try await store.apnsFaultRules()
            let rule = try self.rule(among: rules)
            rules.removeAll { $0.id == rule.id }
            rules.append(rule)
            try await store.setAPNsFaultRules(rules)
            CLIOutput.print("added \(APNsFaultList.describe(rule))")
        }
    }

    /// The rule these options describe; its id is `rule-<n>` when none was given.
    ///
    /// - Throws: `ValidationError` with the rule's sentence when the options make no rule.
    func rule(among rules: [APNsFaultRule]) throws -> APNsFaultRule {
        let actions: [APNsFaultRule.Action] =
            (hold ? [.hold] : []) + (closeAfter != nil ? [.close] : []) + (shutdown ? [.shutdown] : [])
        guard actions.count <= 1 else { throw ValidationError("--hold, --close-after and --shutdown exclude each other") }
        do {
            return try APNsFaultRule(
                id: id ?? Self.freeID(among: rules), action: actions.first ?? .answer, reason: reason, count: closeAfter,
                delay: try delay.map(Self.seconds) ?? 0, topic: topic, token: token, fraction: fraction, seed: seed)
        } catch let error as APNsFaultRuleError {
            throw ValidationError(error.description)
        }
    }

    /// `250ms`, `2s` or a number of seconds.
    static func seconds(_ text: String) throws -> TimeInterval {
        let value: Double? =
            if text.hasSuffix("ms") { Double(text.dropLast(2)).map { $0 / 1_000 } }
            else if text.hasSuffix("s") { Double(text.dropLast()) }
            else { Double(text) }
        guard let value else { throw ValidationError("cannot read the delay '\(text)' (examples: 250ms, 2s, 1.5)") }
        return value
    }

    static func freeID(among rules: [APNsFaultRule]) -> String {
        var number = rules.count + 1
        while rules.contains(where: { $0.id == "rule-\(number)" }) { number += 1 }
        return "rule-\(number)"
    }
}

struct APNsFaultList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the fault rules, in the order they are tried.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let rules = try await openStore(global).apnsFaultRules()
            if global.json {
                let objects: [[String: Any]] = rules.map { rule in
                    [
                        "id": rule.id, "action": rule.action.rawValue, "count": rule.count ?? NSNull(),
                        "reason": rule.reason ?? NSNull(), "status": rule.answer?.status ?? NSNull(),
                        "delay": rule.delay, "topic": rule.topic ?? NSNull(), "token": rule.token ?? NSNull(),
                        "fraction": rule.fraction, "seed": rule.seed,
                    ]
                }
                try CLIOutput.printJSON(objects)
                return
            }
            if rules.isEmpty { CLIOutput.print("no fault rules: the endpoint answers as APNs does") }
            for rule in rules { CLIOutput.print(Self.describe(rule)) }
        }
    }

    /// One line: `busy: 429 TooManyRequests, topic com.example.app, 25% (seed 7)`.
    static func describe(_ rule: APNsFaultRule) -> String {
        var parts: [String] = []
        switch rule.action {
        case .answer: if let answer = rule.answer { parts.append("\(answer.status) \(answer.reason)") }
        case .hold: parts.append("never answers")
        case .close:
            parts.append("closes the connection after \(rule.count ?? 1) (GOAWAY \(rule.reason ?? "Shutdown"))")
        case .shutdown: parts.append("503 Shutdown, GOAWAY, new connections closed")
        }
        if rule.delay > 0 { parts.append("after \(rule.delay) s") }
        parts.append(rule.topic.map { "topic \($0)" } ?? "any topic")
        if let token = rule.token { parts.append("token …\(token.suffix(8))") }
        if rule.fraction < 1 { parts.append("\(rule.fraction * 100)% (seed \(rule.seed))") }
        return "\(rule.id): " + parts.joined(separator: ", ")
    }
}

struct APNsFaultClear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove fault rules: the ones named, or all.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The ids of the rules to remove; all when none is given.") var ids: [String] = []

    func run() async throws {
        try await reportingErrors {
            let store = try openStore(global)
            let rules = try await store.apnsFaultRules()
            if let unknown = ids.first(where: { id in !rules.contains { $0.id == id } }) {
                throw ValidationError("no fault rule '\(unknown)' (`unotify apns fault list` shows them)")
            }
            let kept = ids.isEmpty ? [] : rules.filter { !ids.contains($0.id) }
            try await store.setAPNsFaultRules(kept)
            CLIOutput.print("removed \(rules.count - kept.count) fault rule\(rules.count - kept.count == 1 ? "" : "s")")
        }
    }
}

/// `unotify apns fault load FILE`: replaces the rules with a file's, one rule a line in `fault add`'s options.
struct APNsFaultLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Replace the fault rules with the ones in a file.",
        discussion: """
            One rule a line, written with the options of `unotify apns fault add` (--reason, --delay, --hold, \
            --close-after, --shutdown, --topic, --token, --fraction, --seed, --id); blank lines and lines starting \
            with # are skipped. A file with a line that does not parse changes nothing: each such line is reported \
            with its number.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The rules file.") var file: String

    func run() async throws {
        try await reportingErrors {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw ValidationError("cannot read \(file): \(error.localizedDescription)")
            }
            let rules = try Self.parse(text, name: file)
            try await openStore(global).setAPNsFaultRules(rules)
            CLIOutput.print("loaded \(rules.count) fault rule\(rules.count == 1 ? "" : "s") from \(file)")
            for rule in rules { CLIOutput.print(APNsFaultList.describe(rule)) }
        }
    }

    /// The rules of a file's text, in order.
    ///
    /// - Throws: `ValidationError` when a line makes no rule, after writing each such line's error to stderr as
    ///   `name:line: sentence`.
    static func parse(_ text: String, name: String) throws -> [APNsFaultRule] {
        var rules: [APNsFaultRule] = []
        var errors: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            do {
                let words = try Self.words(trimmed)
                let options = try APNsFaultAdd.parse(words)
                let rule = try options.rule(among: rules)
                if rules.contains(where: { $0.id == rule.id }) {
                    throw ValidationError("a second rule with the id '\(rule.id)'")
                }
                rules.append(rule)
            } catch {
                let sentence = (error as? ValidationError)?.message ?? APNsFaultAdd.message(for: error)
                errors.append("\(name):\(index + 1): \(sentence.split(separator: "\n").first ?? "")")
            }
        }
        guard errors.isEmpty else {
            // One line each, on stderr; the command's error then says that nothing changed.
            for error in errors { CLIContext.say(error) }
            throw ValidationError(
                "\(errors.count) line\(errors.count == 1 ? "" : "s") of \(name) make no rule: no rule was changed")
        }
        return rules
    }

    /// Splits a line into words as a shell would for these options: spaces separate, '…' and "…" quote.
    static func words(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil else { throw ValidationError("a quote is not closed") }
        if inWord { words.append(current) }
        return words
    }
}

/// `unotify apns log`: what the APNs endpoint received and answered, from the store's ring.
struct APNsLog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the requests the APNs endpoint received: time, connection, environment, headers, payload, answer, latency.",
        discussion: """
            unotifyd keeps the latest --apns-log-size requests (1,000 by default) in the store. Device tokens and \
            provider tokens are shown only as their last eight characters.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Keep printing requests as they arrive, until interrupted.") var follow = false
    @Option(help: "Only requests with this apns-topic.") var topic: String?
    @Option(help: "Only requests answered with this HTTP status.") var status: Int?
    @Option(help: "At most this many of the latest requests (before --follow's new ones).") var limit = 50

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit takes 1 or more") }
    }

    func run() async throws {
        try await reportingErrors {
            let store = try openStore(global)
            var last: Int64 = 0
            var first = true
            repeat {
                let entries = try await store.apnsLog(afterID: last, limit: first ? limit : 10_000)
                last = entries.last?.id ?? last
                let shown = entries.filter { (topic == nil || $0.topic == topic) && (status == nil || $0.status == status) }
                if global.json {
                    for entry in shown { try CLIOutput.printJSONLine(entry) }
                } else {
                    if first, shown.isEmpty, !follow { CLIOutput.print("no APNs requests logged") }
                    for entry in shown { CLIOutput.print(Self.line(entry)) }
                }
                first = false
                if follow { try await Task.sleep(for: .milliseconds(250)) }
            } while follow
        }
    }

    /// `10:50:01.123 development c3f2 POST /3/device/…a1b2c3d4 com.example.app → 429 TooManyRequests 1.2 ms {"aps":…}`
    static func line(_ entry: APNsLogEntry) -> String {
        let time = entry.receivedAt.formatted(.iso8601.time(includingFractionalSeconds: true))
        let answer = "\(entry.status)" + (entry.reason.map { " \($0)" } ?? "")
        let payload = entry.payload.count > 80 ? String(entry.payload.prefix(79)) + "…" : entry.payload
        return "\(time) \(entry.environment.rawValue) \(entry.connection) \(entry.method) \(entry.path) "
            + "\(entry.topic ?? "-") → \(answer) \(String(format: "%.1f ms", entry.latency * 1_000)) \(payload)"
    }
}
