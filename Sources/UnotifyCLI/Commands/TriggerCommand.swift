import ArgumentParser
import Foundation
import NotificationEngine
import NotificationModel

/// `unotify trigger next`: print a trigger's next fire dates.
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger", abstract: "Inspect triggers.", subcommands: [Next.self])

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a trigger's next fire dates in ISO 8601 UTC, one a line (like systemd-analyze calendar).",
            discussion: "A location trigger (--region) has no dates: it fires when a location fix crosses its circle.")

        @OptionGroup var when: TriggerOptions
        @Option(help: "Start after this instant (ISO 8601; default: now).") var after: String?
        @Option(help: "How many dates (1 to 10000).") var count: Int = 1

        func run() async throws {
            guard let trigger = try when.trigger() else {
                throw ValidationError("give --in, --at, --calendar or --region")
            }
            guard (1...10_000).contains(count) else { throw ValidationError("--count takes a whole number from 1 to 10000, not \(count)") }
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
            if case .location(let region, let repeats) = trigger {
                throw CLIError(Self.noDates(for: region, repeats: repeats))
            }
            let dates = TriggerPlanner.fireDates(
                for: trigger, after: start, count: count, calendar: SystemNotificationClock().calendar)
            if dates.isEmpty { throw CLIError("no date matches this trigger") }
            for date in dates { CLIOutput.print(CLIOutput.iso(date)) }
        }

        /// Why a location trigger has no dates, and what makes it fire instead: one line.
        static func noDates(for region: RegionSpec, repeats: Bool) -> String {
            let crossing =
                switch (region.notifyOnEntry, region.notifyOnExit) {
                case (true, true): "on entering or leaving"
                case (true, false): "on entering"
                case (false, true): "on leaving"
                case (false, false): "on neither entering nor leaving"
                }
            func number(_ value: Double) -> String {
                value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
            }
            return "a location trigger has no fire dates: it fires \(repeats ? "every time" : "once"), \(crossing) the "
                + "\(number(region.radius)) m circle around \(number(region.latitude)),\(number(region.longitude)) "
                + "(region '\(region.identifier)'), when a location fix shows the crossing "
                + "(unotify location set <latitude> <longitude>)"
        }
    }
}
