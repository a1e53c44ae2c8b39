import Foundation
import Logging
import NotificationEngine
import NotificationModel
import NotificationPlatform

#if os(Linux)
import Glibc
#endif

/// Runs the service extension executable an app declared (`setServiceExtensionCommand`), one process per push,
/// as iOS launches an extension's process: the request goes to its standard input, its content comes back on its
/// standard output (``ServiceExtensionProcessMessage``), and it is killed when the engine stops waiting.
///
/// The command runs with `OPENUN_LAUNCH_REASON=serviceExtension`, `OPENUN_BUNDLE_ID=<app>` and
/// `OPENUN_ATTACHMENTS=<the engine's attachment data store>` in its environment, this process's standard error,
/// and no other descriptor of this process (``SpawnedProcess``). Creating a host ignores `SIGPIPE` in this
/// process, so an extension that closed its input cannot kill the system with a write.
public struct ServiceExtensionProcessHost: ServiceExtensionHost {
    let store: any NotificationStore
    let attachmentStoreRoot: String?
    let logger: Logger

    /// Creates a host.
    /// - Parameters:
    ///   - store: Where apps' commands are declared.
    ///   - attachmentStoreRoot: The engine's attachment data store, handed to the extension as
    ///     `OPENUN_ATTACHMENTS` so that the files it attaches land where the engine shows them from.
    ///   - logger: Where starts and failures are logged.
    public init(
        store: any NotificationStore, attachmentStoreRoot: String?,
        logger: Logger = Logger(label: "OpenUserNotifications.serviceExtension")
    ) {
        self.store = store
        self.attachmentStoreRoot = attachmentStoreRoot
        self.logger = logger
        signal(SIGPIPE, SIG_IGN)
    }

    public func startExtension(for request: RequestSpec, appID: String) async -> (any ServiceExtensionRun)? {
        guard let command = try? await store.serviceExtensionCommand(appID: appID), let executable = command.first else {
            return nil
        }
        var environment = ProcessInfo.processInfo.environment
        environment["OPENUN_LAUNCH_REASON"] = "serviceExtension"
        environment["OPENUN_BUNDLE_ID"] = appID
        environment["OPENUN_ATTACHMENTS"] = attachmentStoreRoot
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                executable: executable, arguments: Array(command.dropFirst()), environment: environment,
                standardInputPipe: true, standardOutput: .pipe, standardError: .inherit)
        } catch {
            logger.error("could not start a service extension: \(error)", metadata: ["app": "\(appID)", "command": "\(command)"])
            return nil
        }
        logger.debug("started a service extension", metadata: ["app": "\(appID)", "pid": "\(process.pid)"])
        let run = ProcessServiceExtensionRun(process: process)
        if let output = process.outputPipe {
            LineReader.start(
                output,
                line: { line in
                    if case .content(let payload)? = ServiceExtensionProcessMessage.decode(line: line) {
                        run.answer.resolve(payload)
                    }
                },
                end: { run.answer.resolve(nil) })
        }
        run.write(.request(appID: appID, request: request))
        return run
    }
}

/// One extension process working on one push.
final class ProcessServiceExtensionRun: ServiceExtensionRun {
    private let process: SpawnedProcess
    let answer = OneShot<NotificationPayload?>()

    init(process: SpawnedProcess) {
        self.process = process
    }

    func write(_ message: ServiceExtensionProcessMessage) {
        guard let line = try? message.encodedLine() else { return }
        process.writeInput(line)
    }

    func content() async -> NotificationPayload? {
        await answer.value()
    }

    func timeWillExpire() async {
        write(.timeWillExpire)
    }

    func finish() async {
        process.closeInput()
        await process.stop(signal: SIGKILL, grace: .seconds(5))
        answer.resolve(nil)
    }
}
