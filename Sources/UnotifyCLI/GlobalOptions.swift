import ArgumentParser
import Foundation
import NotificationModel
import OpenUserNotifications

extension OpenUserNotificationsConfiguration.Mode: ExpressibleByArgument {}

/// Options every command takes.
///
/// They may come before the subcommand as well as after it (`unotify --app com.example.app add ...`): the entry point
/// moves them behind it first (``Unotify/movingGlobalOptions(in:)``).
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Act as this app (bundle identifier).")
    var app: String = ProcessInfo.processInfo.environment["OPENUN_BUNDLE_ID"] ?? "local.unotify"

    @Option(name: .long, help: "The store file (default: $OPENUN_STORE or the XDG data directory).")
    var store: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Option(name: .long, help: "automatic (the daemon when it runs), embedded or daemon (default: $OPENUN_MODE).")
    var mode: OpenUserNotificationsConfiguration.Mode?

    @Option(name: .long, help: "The daemon's socket (default: $OPENUN_SOCKET or $XDG_RUNTIME_DIR/...).")
    var socket: String?

    @Flag(name: .long, help: "Say which store and mode were used.")
    var verbose = false

    func validate() throws {
        do {
            try AppIdentifier.validate(app)
        } catch {
            throw ValidationError("--app: \(error.description)")
        }
        for (name, path) in [("--store", store), ("--socket", socket)] {
            if let path, path.isEmpty || path.contains("\0") { throw ValidationError("\(name) takes a file path, not '\(path)'") }
        }
    }
}

extension GlobalOptions {
    /// The options above that take a value, as written on the command line.
    static let valueOptionNames: Set<String> = ["--app", "--store", "--mode", "--socket"]

    /// The flags above, as written on the command line.
    static let flagNames: Set<String> = ["--json", "--verbose"]
}
