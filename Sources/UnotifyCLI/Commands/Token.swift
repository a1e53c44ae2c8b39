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
            answer 410 Unregistered, and registering again issues a new token. As on iOS, pushes to an app that is \
            not authorized to notify are answered 200 and then dropped (history: unauthorized); the command says so \
            on standard error, with the `unotify authorize --grant` line that allows the app.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Unregister the app instead: its token stops taking pushes.") var unregister = false
    @Option(
        help: ArgumentHelp(
            "development (default, as for a build Xcode installs) or production (TestFlight and App Store builds).",
            discussion: "Each environment issues its own token, taken only by its endpoint: unotifyd --apns-address for development, --apns-production-address for production; the other answers 400 BadDeviceToken."))
    var environment: PushEnvironment = .development
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
                guard
                    let done = try await store.unregisterForRemoteNotifications(
                        appID: context.appID, at: now, environment: environment)
                else {
                    throw CLIError("\(context.appID) is not registered for remote notifications (\(environment.rawValue))")
                }
                registration = done
            } else {
                registration = try await store.registerForRemoteNotifications(
                    appID: context.appID, at: now, bundleDirectory: directory, environment: environment)
                let state = try await context.backend.appState(appID: context.appID)
                if !state.authorization.allowsDelivery {
                    CLIContext.say(Self.unauthorizedWarning(appID: context.appID, status: state.authorization, global))
                }
            }
            if global.json {
                var object: [String: Any] = [
                    "app": registration.appID, "token": registration.token.hex,
                    "environment": registration.environment.rawValue,
                    "registeredAt": CLIOutput.iso(registration.registeredAt),
                ]
                if let date = registration.unregisteredAt { object["unregisteredAt"] = CLIOutput.iso(date) }
                try CLIOutput.printJSON(object)
            } else {
                CLIOutput.print(registration.token.hex)
            }
        }
    }

    /// What `token` says on standard error while the app may not notify: its pushes are accepted and dropped, and
    /// the command that allows it (with the store, mode and socket this command was given).
    ///
    /// - Parameters:
    ///   - appID: The app.
    ///   - status: Its authorization, one that does not allow delivery (`notDetermined` or `denied`).
    ///   - global: The options this command was given.
    /// - Returns: One line.
    static func unauthorizedWarning(appID: String, status: AuthorizationStatus, _ global: GlobalOptions) -> String {
        var grant = ["unotify", "authorize", "--grant", "--app", appID]
        if let store = global.store { grant += ["--store", store] }
        if let mode = global.mode { grant += ["--mode", mode.rawValue] }
        if let socket = global.socket { grant += ["--socket", socket] }
        let why = status == .denied ? "is denied notifications" : "has not been authorized to show notifications"
        return "unotify: \(appID) \(why): pushes to this token are answered 200 and dropped (history: unauthorized) "
            + "until the app is authorized; grant it with: \(grant.map(shellWord).joined(separator: " "))"
    }

    /// `word` as one word for a POSIX shell: unchanged when it is plain, otherwise in single quotes.
    static func shellWord(_ word: String) -> String {
        let safe = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "@%+=:,./_-"))
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { $0.isASCII && safe.contains($0) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

extension PushEnvironment: ExpressibleByArgument {}
