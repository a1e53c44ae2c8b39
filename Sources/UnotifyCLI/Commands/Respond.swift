import ArgumentParser
import NotificationModel

/// `unotify respond`: answer a delivered notification as a person would.
struct Respond: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer a delivered notification: an action, a tap (default), text, or a dismissal.",
        discussion: "The answer reaches the app's delegate at once if it runs, or when it next sets its delegate.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The delivered notification's identifier.") var identifier: String
    @Option(help: "An action identifier of the notification's category.") var action: String?
    @Flag(help: "Dismiss it (reaches the app only for categories with customDismissAction).") var dismiss = false
    @Option(help: "Text for a text-input action.") var text: String?

    func validate() throws {
        guard !(dismiss && action != nil) else { throw ValidationError("give --action or --dismiss, not both") }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            let actionIdentifier =
                dismiss ? ResponseSpec.dismissActionIdentifier : action ?? ResponseSpec.defaultActionIdentifier
            let routed = try await context.backend.respond(
                appID: context.appID, notificationIdentifier: identifier, actionIdentifier: actionIdentifier, userText: text)
            if global.json {
                try CLIOutput.printJSON(["identifier": identifier, "action": actionIdentifier, "sentToApp": routed])
            } else {
                CLIOutput.print(routed ? "sent \(actionIdentifier) to \(context.appID)" : "dismissed (the category does not send dismissals)")
            }
        }
    }
}
