import ArgumentParser
import Foundation

/// `unotify status`: the daemon's state, or the embedded store's when no daemon runs.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's state: apps, pending count, next fire date, last delivery, uptime.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let context = try CLIContext(global)
            guard let daemon = context.daemon else {
                let apps = try await context.scheduler?.allApps() ?? []
                let history = try await context.backend.history(appID: nil, limit: 1)
                if global.json {
                    try CLIOutput.printJSON([
                        "mode": "embedded", "store": context.storePath, "apps": apps.map(\.appID),
                        "lastDelivery": history.first.map { CLIOutput.iso($0.actedAt) } ?? NSNull(),
                    ])
                } else {
                    CLIOutput.print("no daemon running; embedded mode on \(context.storePath)")
                    CLIOutput.print("apps: \(apps.map(\.appID).joined(separator: ", "))")
                }
                return
            }
            let status = try await daemon.status(appID: context.appID)
            if global.json {
                try CLIOutput.printJSON([
                    "mode": "daemon", "version": status.daemonVersion, "protocol": status.protocolVersion,
                    "pid": status.processID, "uptime": status.uptime, "store": status.storePath, "socket": status.socketPath,
                    "pending": status.pendingCount, "nextFireDate": status.nextFireDate.map(CLIOutput.iso) ?? NSNull(),
                    "lastDelivery": status.lastDelivery.map { CLIOutput.iso($0.actedAt) } ?? NSNull(),
                    "clients": status.connectedClients,
                    "apps": status.apps.map {
                        ["app": $0.appID, "authorization": "\($0.authorization)", "pending": $0.pendingCount, "running": $0.running]
                            as [String: Any]
                    },
                ])
                return
            }
            CLIOutput.print("unotifyd \(status.daemonVersion) (protocol \(status.protocolVersion)), pid \(status.processID), up \(Int(status.uptime)) s")
            CLIOutput.print("store \(status.storePath), socket \(status.socketPath), \(status.connectedClients) clients")
            CLIOutput.print("pending \(status.pendingCount), next fire \(status.nextFireDate.map(CLIOutput.iso) ?? "none")")
            if let last = status.lastDelivery {
                CLIOutput.print("last delivery \(CLIOutput.iso(last.actedAt)) \(last.appID) \(last.requestIdentifier) (\(last.outcome.rawValue))")
            }
            for app in status.apps {
                CLIOutput.print("  \(app.appID): \(app.authorization), \(app.pendingCount) pending\(app.running ? ", running" : "")")
            }
        }
    }
}
