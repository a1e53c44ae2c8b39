import ArgumentParser
import NotificationModel

/// `unotify authorize`: show or change the app's permission, as a person does in Settings.
struct Authorize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show or change the app's notification permission.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Allow notifications.") var grant = false
    @Flag(help: "Deny notifications: `add` then fails with notificationsNotAllowed.") var deny = false
    @Flag(help: "Forget the decision (notDetermined).") var reset = false
    @Option(help: "What a grant covers: a comma list of alert, sound, badge, criticalAlert, provisional.")
    var options: String = "alert,sound,badge"

    static let optionNames: [String: AuthorizationSet] = [
        "alert": .alert, "sound": .sound, "badge": .badge, "criticalAlert": .criticalAlert, "provisional": .provisional,
        "carPlay": .carPlay, "providesAppNotificationSettings": .providesAppNotificationSettings,
    ]

    func validate() throws {
        guard [grant, deny, reset].filter({ $0 }).count <= 1 else { throw ValidationError("give one of --grant, --deny, --reset") }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            var set: AuthorizationSet = []
            for name in options.split(separator: ",").map(String.init) {
                guard let option = Self.optionNames[name] else { throw ValidationError("unknown option '\(name)'") }
                set.insert(option)
            }
            if grant {
                try await context.backend.setAuthorization(
                    appID: context.appID, status: set.contains(.provisional) ? .provisional : .authorized, options: set)
            } else if deny {
                try await context.backend.setAuthorization(appID: context.appID, status: .denied, options: [])
            } else if reset {
                try await context.backend.setAuthorization(appID: context.appID, status: .notDetermined, options: [])
            }
            let state = try await context.backend.appState(appID: context.appID)
            let granted = Self.optionNames.filter { state.grantedOptions.contains($0.value) }.keys.sorted()
            if global.json {
                try CLIOutput.printJSON(["app": state.appID, "status": "\(state.authorization)", "options": granted])
            } else {
                CLIOutput.print("\(state.appID): \(state.authorization) \(granted.joined(separator: ","))")
            }
        }
    }
}
