import ArgumentParser
import Foundation
import NotificationModel

/// `unotify list`: the app's pending requests.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the app's pending requests.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            let pending = try await context.backend.pendingRequests(appID: context.appID)
                .sorted { ($0.nextFireDate ?? .distantFuture) < ($1.nextFireDate ?? .distantFuture) }
            if global.json {
                try CLIOutput.printJSON(pending.map(Self.json))
                return
            }
            if pending.isEmpty { CLIOutput.print("no pending requests for \(context.appID)") }
            for request in pending {
                CLIOutput.print(
                    "\(request.nextFireDate.map(CLIOutput.iso) ?? "(no date)          ")  \(request.identifier)  "
                        + "\(Describe.trigger(request.spec.trigger))  \(request.spec.content.title.debugDescription)")
            }
        }
    }

    static func json(_ request: PendingRequest) -> [String: Any] {
        [
            "identifier": request.identifier, "title": request.spec.content.title, "body": request.spec.content.body,
            "nextFireDate": request.nextFireDate.map(CLIOutput.iso) ?? NSNull(),
            "trigger": Describe.trigger(request.spec.trigger), "repeats": request.spec.trigger?.repeats ?? false,
            "missedFirePolicy": request.spec.missedFirePolicy.description,
            "userInfo": request.spec.content.userInfo.mapValues(\.jsonValue),
            "content": ListingJSON.content(request.spec.content), "triggerDetails": ListingJSON.trigger(request.spec.trigger),
        ]
    }
}

/// Short descriptions for listings.
enum Describe {
    static func trigger(_ trigger: TriggerSpec?) -> String {
        switch trigger {
        case nil: "now"
        case .push: "push"
        case .timeInterval(let seconds, let repeats): "in \(seconds.formatted())s\(repeats ? " repeating" : "")"
        case .calendar(let components, let repeats, let matching):
            "calendar \(calendar(components))\(repeats ? " repeating" : "")\(matching == .strict ? " strict" : "")"
        case .location(let region, let repeats): "region \(region.identifier)\(repeats ? " repeating" : "")"
        }
    }

    static func calendar(_ components: CalendarComponents) -> String {
        let pairs = TriggerOptions.componentNames.compactMap { name, keyPath in
            components[keyPath: keyPath].map { "\(name)=\($0)" }
        }.sorted()
        return pairs.joined(separator: ",") + (components.timeZoneIdentifier.map { " \($0)" } ?? " floating")
    }
}
