import Foundation
import Logging
import NotificationEngine
import NotificationPlatform

/// Runs an app's registered launch command when a response is queued for it while it is not running, the
/// analogue of iOS launching the app in the background. The app then connects, sets its delegate, and receives
/// the queued responses.
///
/// The command runs with `OPENUN_LAUNCH_REASON=response` and `OPENUN_BUNDLE_ID=<app>` in its environment, this
/// process's standard output and error, default signal handling, and no other descriptor of this process
/// (``SpawnedProcess``): an app started by the daemon never holds the daemon's sockets.
public struct LaunchCommandLauncher: AppLauncher {
    let store: any NotificationStore
    let logger: Logger

    public init(store: any NotificationStore, logger: Logger = Logger(label: "OpenUserNotifications.launcher")) {
        self.store = store
        self.logger = logger
    }

    public func launch(appID: String) async {
        guard let command = try? await store.launchCommand(appID: appID), let executable = command.first else { return }
        var environment = ProcessInfo.processInfo.environment
        environment["OPENUN_LAUNCH_REASON"] = "response"
        environment["OPENUN_BUNDLE_ID"] = appID
        do {
            let process = try SpawnedProcess(
                executable: executable, arguments: Array(command.dropFirst()), environment: environment,
                standardOutput: .inherit, standardError: .inherit)
            logger.info("launched app for a response", metadata: ["app": "\(appID)", "command": "\(command)"])
            Task.detached { _ = await process.waitForExit(timeout: nil) }  // reaped whenever it ends
        } catch {
            logger.error("could not launch app: \(error)", metadata: ["app": "\(appID)", "command": "\(command)"])
        }
    }
}
