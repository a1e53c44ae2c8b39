import ArgumentParser
import Foundation

/// `unotify server audience`: binds a device to an account, aliases and tags (docs/push-service.md, "Audiences"),
/// unbinds them, and prints what the device has.
struct ServerAudience: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audience",
        abstract: "Show a device's account, aliases and tags; bind or unbind them.",
        discussion: """
            Without options it prints the device's audience. --account binds the device to an account (replacing \
            the one it has), --alias and --tag add aliases and tags (repeat for several); --unbind-account, \
            --unbind-alias and --unbind-tag remove them. Unbinding runs first, then binding, one call each; a refused \
            call (a name over 128 characters, more than 128 aliases or tags) stops there with the server's reason, \
            and the calls made before it stay made.
            """)

    @OptionGroup var options: ServerOptions
    @Argument(help: "The device's identifier.") var device: String
    @Option(help: "Bind the device to this account.") var account: String?
    @Option(name: .customLong("alias"), help: "Add an alias (repeat for several).") var aliases: [String] = []
    @Option(name: .customLong("tag"), help: "Add a tag (repeat for several).") var tags: [String] = []
    @Flag(help: "Unbind the device from its account.") var unbindAccount = false
    @Option(name: .customLong("unbind-alias"), help: "Remove an alias (repeat for several).")
    var unboundAliases: [String] = []
    @Option(name: .customLong("unbind-tag"), help: "Remove a tag (repeat for several).") var unboundTags: [String] = []

    func validate() throws {
        if account != nil && unbindAccount { throw ValidationError("give --account or --unbind-account, not both") }
        for name in [account].compactMap({ $0 }) + aliases + tags + unboundAliases + unboundTags where name.isEmpty {
            throw ValidationError("an account, alias or tag name is not empty")
        }
    }

    /// The calls to make, in order: `(method, path after the device's, body)`.
    var calls: [(String, String, [String: Any]?)] {
        var calls: [(String, String, [String: Any]?)] = []
        if unbindAccount { calls.append(("DELETE", "account", nil)) }
        calls += unboundAliases.map { ("DELETE", "aliases/\(ServerAPIClient.segment($0))", nil) }
        calls += unboundTags.map { ("DELETE", "tags/\(ServerAPIClient.segment($0))", nil) }
        if let account { calls.append(("PUT", "account", ["account": account])) }
        if !aliases.isEmpty { calls.append(("POST", "aliases", ["aliases": aliases])) }
        if !tags.isEmpty { calls.append(("POST", "tags", ["tags": tags])) }
        if calls.isEmpty { calls.append(("GET", "audience", nil)) }
        return calls
    }

    func run() async throws {
        try await reportingErrors {
            let client = try options.client()
            let base = "v1/devices/\(ServerAPIClient.segment(device))/"
            var last: Any?
            for (method, path, body) in calls {
                last = try await client.send(method, base + path, body: body).json
            }
            guard let audience = last as? [String: Any] else { throw CLIError("the server's answer is not a JSON object") }
            if options.json {
                try CLIOutput.printJSON(audience)
                return
            }
            let aliases = audience["aliases"] as? [String] ?? []
            let tags = audience["tags"] as? [String] ?? []
            CLIOutput.print("device   \(audience["device"] as? String ?? device)")
            CLIOutput.print("account  \(audience["account"] as? String ?? "(none)")")
            CLIOutput.print("aliases  \(aliases.isEmpty ? "(none)" : aliases.joined(separator: ", "))")
            CLIOutput.print("tags     \(tags.isEmpty ? "(none)" : tags.joined(separator: ", "))")
        }
    }
}
