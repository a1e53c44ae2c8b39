import ArgumentParser
import Foundation

/// `unotify delivered`: the app's delivered notifications still listed.
struct Delivered: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the app's delivered notifications.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            let delivered = try await context.backend.deliveredNotifications(appID: context.appID)
            if global.json {
                try CLIOutput.printJSON(
                    delivered.map {
                        [
                            "identifier": $0.identifier, "title": $0.request.content.title, "body": $0.request.content.body,
                            "date": CLIOutput.iso($0.date), "dueDate": CLIOutput.iso($0.dueDate),
                            "category": $0.request.content.categoryIdentifier, "presentation": $0.presentation.names,
                            "content": ListingJSON.content($0.request.content),
                            "triggerDetails": ListingJSON.trigger($0.request.trigger),
                        ] as [String: Any]
                    })
                return
            }
            if delivered.isEmpty { CLIOutput.print("no delivered notifications for \(context.appID)") }
            for notification in delivered {
                CLIOutput.print(
                    "\(CLIOutput.iso(notification.date))  \(notification.identifier)  "
                        + notification.request.content.title.debugDescription)
            }
        }
    }
}
