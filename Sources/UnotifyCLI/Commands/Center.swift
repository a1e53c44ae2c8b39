import ArgumentParser
import Foundation
import NotificationClient
import NotificationWebCenterFiles
import OpenUserNotifications

/// `unotify center`: the link to the daemon's web notification center, with its secret.
struct Center: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the link to the web notification center that unotifyd serves (with its secret).",
        discussion: """
            The daemon writes the secret and the center's address beside its socket (web-center.token and \
            web-center.url, mode 0600) when it starts the center; the link sets a cookie in the browser and drops \
            the secret from the address. Anyone with the link can act on your notifications: do not share it.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Open the link in the desktop's browser (xdg-open) besides printing it.") var open = false

    func run() async throws {
        try await reportingErrors {
            var configuration = OpenUserNotificationsConfiguration.fromEnvironment()
            if let socket = global.socket { configuration.socketPath = socket }
            let socket = configuration.resolvedSocketPath
            guard DaemonBackend.isListening(at: socket) else {
                throw CLIError(
                    "unotifyd is not running (no daemon listens at \(socket)): start it, then run unotify center")
            }
            let contents: WebCenterFiles.Contents
            do {
                contents = try WebCenterFiles(socketPath: socket).read()
            } catch let error as WebCenterError {
                throw CLIError(error.message)
            }
            if global.json {
                try CLIOutput.printJSON(["url": contents.link, "base": contents.baseURL])
            } else {
                CLIOutput.print(contents.link)
            }
            if open { try Self.openInBrowser(contents.link) }
        }
    }

    /// Runs `xdg-open link` and waits for it (it returns once the browser has the link).
    static func openInBrowser(_ link: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", link]
        do { try process.run() } catch { throw CLIError("cannot run xdg-open: \(error)") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError("xdg-open could not open the link (status \(process.terminationStatus)); open it by hand")
        }
    }
}
