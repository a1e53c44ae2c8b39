import ArgumentParser

/// `unotify badge`: show or set the app's badge.
struct Badge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show or set the app's badge count (0 hides it).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The new count.") var count: Int?

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            if let count { try await context.backend.setBadge(appID: context.appID, count: count) }
            let state = try await context.backend.appState(appID: context.appID)
            if global.json {
                try CLIOutput.printJSON(["app": state.appID, "badge": state.badge])
            } else {
                CLIOutput.print("\(state.badge)")
            }
        }
    }
}
