import Foundation
import Logging
import NotificationEngine

/// Runs an app's registered launch command when a response is queued for it while it is not running, the
/// analogue of iOS launching the app in the background. The app then connects, sets its delegate, and receives
/// the queued responses.
///
/// The command runs with `OPENUN_LAUNCH_REASON=response` and `OPENUN_BUNDLE_ID=<app>` in its environment.
public struct LaunchCommandLauncher: AppLauncher {
    let store: any NotificationStore
    let logger: Logger

    public init(store: any NotificationStore, logger: Logger = Logger(label: "OpenUserNotifications.launcher")) {
        self.store = store
        self.logger = logger
    }

    public func launch(appID: String) async {
        guard let command = try? store.launchCommand(appID: appID), let executable = command.first else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["OPENUN_LAUNCH_REASON": "response", "OPENUN_BUNDLE_ID": appID]) { $1 }
        do {
            try process.run()
            logger.info("launched app for a response", metadata: ["app": "\(appID)", "command": "\(command)"])
        } catch {
            logger.error("could not launch app: \(error)", metadata: ["app": "\(appID)", "command": "\(command)"])
        }
    }
}
