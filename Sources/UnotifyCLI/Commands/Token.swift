import ArgumentParser
import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// `unotify token`: the app's device token for remote notifications, registering it if needed.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the app's device token (64 hex digits), registering it for remote notifications if needed.",
        discussion: """
            The token stays the same until the app unregisters (--unregister); pushes to an unregistered token \
            answer 410 Unregistered, and registering again issues a new token.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Unregister the app instead: its token stops taking pushes.") var unregister = false
    @Option(name: .long, help: "The app's folder with its Localizable tables and sounds, for loc-key pushes.")
    var bundleDirectory: String?

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            // The daemon keeps its state in the same store file; tokens live in its metadata.
            let store: any NotificationStore = try context.scheduler?.store ?? SQLiteNotificationStore(path: context.storePath)
            let now = Date()
            let directory = bundleDirectory.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            let registration: PushRegistration
            if unregister {
                guard let done = try store.unregisterForRemoteNotifications(appID: context.appID, at: now) else {
                    throw CLIError("\(context.appID) is not registered for remote notifications")
                }
                registration = done
            } else {
                registration = try store.registerForRemoteNotifications(
                    appID: context.appID, at: now, bundleDirectory: directory)
            }
            if global.json {
                var object: [String: Any] = [
                    "app": registration.appID, "token": registration.token.hex,
                    "registeredAt": CLIOutput.iso(registration.registeredAt),
                ]
                if let date = registration.unregisteredAt { object["unregisteredAt"] = CLIOutput.iso(date) }
                try CLIOutput.printJSON(object)
            } else {
                CLIOutput.print(registration.token.hex)
            }
        }
    }
}
