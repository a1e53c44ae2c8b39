import ArgumentParser
import Foundation

/// `unotify history`: what was delivered, when, how, and what became of it.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the app's delivery history, newest first.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "At most this many entries.") var limit: Int = 50
    @Flag(name: .customLong("all-apps"), help: "Every app's history.") var allApps = false

    func validate() throws {
        guard (1...1_000_000).contains(limit) else {
            throw ValidationError("--limit takes a whole number from 1 to 1000000, not \(limit)")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            let entries = try await context.backend.history(appID: allApps ? nil : context.appID, limit: limit)
            if global.json {
                try CLIOutput.printJSON(
                    entries.map {
                        [
                            "app": $0.appID, "identifier": $0.requestIdentifier, "title": $0.title,
                            "due": $0.dueDate.map(CLIOutput.iso) ?? NSNull(), "actedAt": CLIOutput.iso($0.actedAt),
                            "lateness": $0.lateness ?? NSNull(), "presenter": $0.presenter,
                            "presentation": $0.presentation.names, "outcome": $0.outcome.rawValue,
                            "detail": $0.detail ?? NSNull(),
                        ] as [String: Any]
                    })
                return
            }
            if entries.isEmpty { CLIOutput.print("no history for \(allApps ? "any app" : context.appID)") }
            for entry in entries {
                let late = entry.lateness.map { String(format: "%+.3fs", $0) } ?? ""
                CLIOutput.print(
                    "\(CLIOutput.iso(entry.actedAt)) \(late) \(entry.appID) \(entry.requestIdentifier) "
                        + "\(entry.outcome.rawValue)\(entry.detail.map { " (\($0))" } ?? "") via \(entry.presenter)")
            }
        }
    }
}
