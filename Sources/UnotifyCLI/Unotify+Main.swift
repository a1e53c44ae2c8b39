import ArgumentParser
import Foundation

extension Unotify {
    /// Parses and runs a command line as the `unotify` executable does, with errors said in one line.
    ///
    /// ArgumentParser's own `main` follows a bad argument with the command's usage; a script reading standard error,
    /// and a person, get one line here instead: the error, and where the help is (`unotify add --help`). Help and
    /// `--version` print as usual; the exit status is ArgumentParser's (64 for a bad argument) or the command's own.
    public static func runReportingOneLine(_ arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode { exit(withError: error) }  // help, or a status already said
            let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            let subcommand = arguments.prefix { !$0.hasPrefix("-") }.prefix(2).joined(separator: " ")
            let hint = code == .validationFailure ? " (see unotify \(subcommand.isEmpty ? "" : subcommand + " ")--help)" : ""
            FileHandle.standardError.write(Data("Error: \(message)\(hint)\n".utf8))
            exit(withError: ExitCode(code.rawValue))
        }
    }
}
