import ArgumentParser
import Foundation

/// `unotify server cancel-push`: cancels a push that is not sent to every device yet.
struct ServerCancelPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-push",
        abstract: "Cancel a push: it is fanned out no further and its requests not sent yet are removed.")

    @OptionGroup var options: ServerOptions
    @Argument(help: "The push's message id.") var messageID: String

    func run() async throws {
        try await reportingErrors {
            let answer = try await options.client().send("DELETE", "v1/pushes/\(ServerAPIClient.segment(messageID))")
            if options.json {
                try CLIOutput.printJSON(answer.json ?? [:])
                return
            }
            let removed = ServerStatus.int((answer.json as? [String: Any])?["cancelled"])
            CLIOutput.print("cancelled push \(messageID) (\(removed) devices' requests removed)")
        }
    }
}
