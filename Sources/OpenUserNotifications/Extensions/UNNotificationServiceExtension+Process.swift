import Foundation
import Logging
import NotificationEngine
import NotificationModel

extension UNNotificationServiceExtension {
    /// Runs a service extension as the executable an app declared with
    /// ``RemoteNotificationRegistration/setServiceExtensionCommand(_:)``: the `main` of that executable.
    ///
    /// The system starts the executable for one push with `mutable-content` while the app does not run its
    /// extension itself. This reads the request from standard input, calls
    /// ``didReceive(_:withContentHandler:)`` on a new instance, calls ``serviceExtensionTimeWillExpire()`` when
    /// the system says the time is nearly up, writes the content given to the content handler (its attachments
    /// checked and moved into the app's attachment data store) to standard output, and returns. The system kills
    /// the process when it stops waiting; one that exits or crashes without content leaves the original content.
    ///
    /// ```swift
    /// // Sources/NotificationService/main.swift
    /// import OpenUserNotifications
    ///
    /// final class NotificationService: UNNotificationServiceExtension { … }
    /// await UNNotificationServiceExtension.runAsProcess { NotificationService() }
    /// ```
    ///
    /// - Parameter makeExtension: Makes the extension instance.
    /// - Returns: Whether content was written.
    @discardableResult
    public static func runAsProcess(
        _ makeExtension: @escaping @Sendable () -> UNNotificationServiceExtension
    ) async -> Bool {
        let logger = Logger(label: "OpenUserNotifications.serviceExtension")
        let request = OneShot<(appID: String, request: RequestSpec)?>()
        let expired = OneShot<Void>()
        LineReader.start(
            FileHandle.standardInput,
            line: { line in
                switch ServiceExtensionProcessMessage.decode(line: line) {
                case .request(let appID, let spec)?: request.resolve((appID, spec))
                case .timeWillExpire?: expired.resolve(())
                case .content?, nil: logger.warning("ignored a line on standard input that is not a request")
                }
            },
            end: { request.resolve(nil) })
        guard let (appID, spec) = await request.value() else {
            logger.error("no request on standard input")
            return false
        }
        let host = InProcessServiceExtensionHost(configuration: .current, makeExtension: makeExtension)
        guard let run = await host.startExtension(for: spec, appID: appID) else { return false }
        let expiry = Task {
            await expired.value()
            await run.timeWillExpire()
        }
        defer { expiry.cancel() }
        guard let content = await run.content(), let line = try? ServiceExtensionProcessMessage.content(payload: content).encodedLine()
        else { return false }
        FileHandle.standardOutput.write(line)
        return true
    }
}
