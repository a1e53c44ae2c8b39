import ArgumentParser
import Foundation
import NotificationEngine

/// `unotify trigger next`: print a trigger's next fire dates.
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger", abstract: "Inspect triggers.", subcommands: [Next.self])

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a trigger's next fire dates in ISO 8601 UTC, one a line (like systemd-analyze calendar).")

        @OptionGroup var when: TriggerOptions
        @Option(help: "Start after this instant (ISO 8601; default: now).") var after: String?
        @Option(help: "How many dates.") var count: Int = 1

        func run() async throws {
            guard let trigger = try when.trigger() else { throw ValidationError("give --in, --at or --calendar") }
            guard count > 0 else { throw ValidationError("--count must be at least 1") }
            let start: Date
            if let after {
                guard let date = try? Date(after, strategy: .iso8601) else {
                    throw ValidationError("cannot read --after '\(after)' (use 2026-03-08T11:00:00Z)")
                }
                start = date
            } else {
                start = Date()
            }
            do { try TriggerPlanner.validate(trigger) } catch let error as EngineError { throw CLIError(error.message) }
            let dates = TriggerPlanner.fireDates(
                for: trigger, after: start, count: count, calendar: SystemNotificationClock().calendar)
            if dates.isEmpty { throw CLIError("no date matches this trigger") }
            for date in dates { CLIOutput.print(CLIOutput.iso(date)) }
        }
    }
}
