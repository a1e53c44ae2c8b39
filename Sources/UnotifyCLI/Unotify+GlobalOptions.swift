import ArgumentParser

extension Unotify {
    /// The command line with the global options that come before the subcommand moved behind it.
    ///
    /// ArgumentParser reads an option only after the subcommand that declares it, and every command declares the
    /// ``GlobalOptions`` itself, so `unotify --app com.example.app add --in 1h` would fail with "Unknown option
    /// '--app'". This moves `--app`, `--store`, `--mode`, `--socket` (with their values, also as `--app=value`),
    /// `--json` and `--verbose` from before the subcommand to right after its name (after `categories set`, for a
    /// nested one): `add --app com.example.app --in 1h`.
    ///
    /// The word after a value option is its value even when it is a subcommand name (`--app add add` acts as the
    /// app `add`), unless it starts with `-` (then ArgumentParser reports the missing value). Anything else before
    /// the subcommand stops the move, and a line that names no command to run (none, or only a group such as
    /// `categories`) is returned unchanged, so its help (`--help`) and errors are ArgumentParser's own.
    ///
    /// ```swift
    /// await Unotify.main(Unotify.movingGlobalOptions(in: Array(CommandLine.arguments.dropFirst())))
    /// ```
    ///
    /// - Parameter arguments: The command line without the program name.
    /// - Returns: The command line to parse.
    public static func movingGlobalOptions(in arguments: [String]) -> [String] {
        var command: any ParsableCommand.Type = Unotify.self
        var path: [String] = []
        var moved: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            let named = { (candidate: any ParsableCommand.Type) in
                candidate._commandName == word || candidate.configuration.aliases.contains(word)
            }
            if let child = command.configuration.subcommands.first(where: named) {
                command = child
                path.append(word)
                index += 1
                if child.configuration.subcommands.isEmpty { break }
                continue
            }
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            if GlobalOptions.flagNames.contains(word) {
                moved.append(word)
                index += 1
            } else if GlobalOptions.valueOptionNames.contains(name) {
                moved.append(word)
                index += 1
                if name == word, index < arguments.endIndex, !arguments[index].hasPrefix("-") {
                    moved.append(arguments[index])
                    index += 1
                }
            } else {
                break
            }
        }
        // A group named without its subcommand (`unotify --store F config`) runs its default one: the options go there.
        if !moved.isEmpty, !path.isEmpty, index == arguments.endIndex || arguments[index].hasPrefix("-") {
            while !command.configuration.subcommands.isEmpty, let child = command.configuration.defaultSubcommand {
                command = child
                path.append(child._commandName)
            }
        }
        guard !moved.isEmpty, !path.isEmpty, command.configuration.subcommands.isEmpty else { return arguments }
        return path + moved + arguments[index...]
    }
}
