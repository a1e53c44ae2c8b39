import Foundation
import Logging
import UnotifyCLI

@main
enum UnotifyMain {
    static func main() async {
        // Warnings and errors by default; OPENUN_LOG_LEVEL=info or debug for more.
        let level = ProcessInfo.processInfo.environment["OPENUN_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // Global options may come before the subcommand: `unotify --app com.example.app add ...`.
        await Unotify.runReportingOneLine(Unotify.movingGlobalOptions(in: Array(CommandLine.arguments.dropFirst())))
    }
}
