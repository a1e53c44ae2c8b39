import ArgumentParser

/// `unotify launch-command`: the command that starts the app to hand it a response.
struct LaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch-command",
        abstract: "Register the command that starts the app when a response waits for it (the analogue of iOS "
            + "launching an app in the background).",
        discussion: "Example: unotify launch-command --app com.example.nagme -- /usr/local/bin/nagme --background")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Remove the app's launch command.") var clear = false
    @Argument(parsing: .captureForPassthrough, help: "The executable (an absolute path) and its arguments.")
    var command: [String] = []

    func validate() throws {
        guard clear == command.isEmpty else { throw ValidationError("give a command or --clear") }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            try await context.backend.setLaunchCommand(clear ? nil : command.filter { $0 != "--" }, appID: context.appID)
        }
    }
}
