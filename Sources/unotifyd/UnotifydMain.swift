import ArgumentParser
import Foundation
import Logging
import NotificationDaemon

@main
struct Unotifyd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unotifyd", abstract: "The per-user notification daemon of OpenUserNotifications.")

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        let level = options.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        do {
            if options.isServerMode { return try await options.runServerUntilSignalled() }
            let daemon = try options.makeDaemon()
            try await daemon.runUntilSignalled()
        } catch let error as DaemonError {
            // One line, no usage text: the options were fine, the store or another daemon is the matter.
            FileHandle.standardError.write(Data("unotifyd: \(error)\n".utf8))
            throw ExitCode(error.exitStatus)
        }
    }
}
