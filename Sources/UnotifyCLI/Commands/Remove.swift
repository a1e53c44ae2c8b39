import ArgumentParser

/// `unotify remove`: remove pending requests or delivered notifications.
struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove pending requests (repeating ones stop for good), or delivered notifications with --delivered.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Request identifiers.") var identifiers: [String] = []
    @Flag(help: "Remove all of the app's.") var all = false
    @Flag(help: "Remove delivered notifications instead of pending requests.") var delivered = false

    func validate() throws {
        guard all != !identifiers.isEmpty else { throw ValidationError("give identifiers or --all (not both)") }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            let ids = all ? nil : identifiers
            if delivered {
                try await context.backend.removeDelivered(appID: context.appID, identifiers: ids)
            } else {
                try await context.backend.removePending(appID: context.appID, identifiers: ids)
            }
        }
    }
}
