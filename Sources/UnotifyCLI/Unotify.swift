import ArgumentParser

/// `unotify`: schedule, list, answer and deliver notifications from the command line.
public struct Unotify: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "unotify",
        abstract: "Schedule, list, answer and deliver notifications (OpenUserNotifications).",
        discussion: """
            Acts as one app (--app, default local.unotify) on the user's notification store \
            ($OPENUN_STORE, else $XDG_DATA_HOME/openusernotifications/store.sqlite). `unotify watch` runs the engine \
            in the foreground and shows notifications in the terminal as they fall due. The options --app, --store, \
            --mode, --socket, --json and --verbose go before or after the subcommand \
            (unotify --app com.example.app add --in 1h --title Hi).
            """,
        subcommands: [
            Add.self, Import.self, List.self, Delivered.self, Remove.self, Categories.self, Authorize.self, Badge.self,
            Respond.self, Watch.self, TriggerCommand.self, History.self, Status.self, LaunchCommand.self, LocationCommand.self,
            Token.self, Center.self, ServerCommand.self,
            Push.self, APNsCommand.self, StoreCommand.self, ConfigCommand.self,
        ])

    public init() {}
}
