import ArgumentParser
import Foundation
import NotificationClient
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite

/// `unotify push`: delivers an APNs payload file to an app, as `xcrun simctl push` does.
struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deliver an APNs payload (an .apns file, or - for stdin) to an app, like `xcrun simctl push`.",
        discussion: """
            The bundle identifier may be left out when the file has a "Simulator Target Bundle" key; when both \
            are given the argument wins. The payload must be a JSON object with an "aps" dictionary, at most \
            4096 bytes (5120 with --type voip). A background push (content-available alone) is handed to the \
            running app or kept until it runs.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The app's bundle identifier (optional with \"Simulator Target Bundle\"), then the file or -.")
    var arguments: [String]
    @Option(name: .long, help: "The apns-collapse-id: replaces a delivered notification with the same one.")
    var collapseId: String?
    @Option(name: .long, help: "The apns-push-type (alert, background, voip, ...).") var type: String = "alert"

    func validate() throws {
        guard (1...2).contains(arguments.count) else {
            throw ValidationError("usage: unotify push [<bundle-id>] (<file> | -)")
        }
        if arguments.count == 2 {
            do { try AppIdentifier.validate(arguments[0]) } catch { throw ValidationError("bundle: \(error.description)") }
        }
    }

    func run() async throws {
        try await reportingErrors {
            guard let pushType = APNsPushType(rawValue: type) else {
                throw CLIError("unknown push type '\(type)' (\(APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if let collapseId, collapseId.isEmpty || collapseId.utf8.count > 64 {
                throw CLIError("a collapse id has 1 to 64 bytes")
            }
            let file = arguments[arguments.count - 1]
            let body: Data
            do {
                body = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError("cannot read \(file): \(error.localizedDescription)")
            }
            let payload: APNsPayload
            do throws(APNsReason) { payload = try APNsPayload.parse(body, pushType: pushType) } catch {
                throw CLIError("\(error.reason) (\(error.status)): \(error.detail)")
            }
            guard let appID = arguments.count == 2 ? arguments[0] : payload.simulatorTargetBundle else {
                throw CLIError("no bundle identifier: give one, or put \"Simulator Target Bundle\" in the file")
            }
            for key in payload.ignoredKeys { CLIContext.say("unotify: ignored \(key) (wrong type or value)") }
            var context = global
            context.app = appID
            let cli = try CLIContext(context)
            let apnsID = UUID().uuidString.lowercased()
            let outcome: String
            if let scheduler = cli.scheduler {
                let directory = try await scheduler.store.pushRegistration(appID: appID)?.bundleDirectory
                let push = RemoteNotification(
                    payload: payload, apnsID: apnsID, collapseIdentifier: collapseId, pushType: pushType,
                    bundleDirectory: directory)
                outcome = try await scheduler.deliverPush(push, appID: appID).rawValue
                await scheduler.waitForServiceExtensions()  // the push shows before this process ends
            } else if let daemon = cli.backend as? DaemonBackend {
                let directory = try await daemon.pushRegistration(appID: appID)?.bundleDirectory
                let push = RemoteNotification(
                    payload: payload, apnsID: apnsID, collapseIdentifier: collapseId, pushType: pushType,
                    bundleDirectory: directory)
                outcome = try await daemon.deliverPush(push, appID: appID).rawValue
            } else {
                throw CLIError("no notification system to push to")
            }
            if global.json {
                try CLIOutput.printJSON(["app": appID, "apns-id": apnsID, "outcome": outcome])
            } else {
                CLIOutput.print("\(appID): \(outcome) (apns-id \(apnsID))")
            }
        }
    }
}
