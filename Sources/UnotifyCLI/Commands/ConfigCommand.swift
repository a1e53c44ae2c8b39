import ArgumentParser
import Foundation
import NotificationEngine
import NotificationStoreSQLite

/// `unotify config`: the settings kept in the store, which every process on it applies.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or change the settings kept in the store, which the daemon and every app on it apply.",
        discussion: """
            Settings: pending-cap (off, or how many dated pending requests each app keeps; Apple's is 64) and \
            authorization (grant or deny: how apps' authorization requests are answered). An unset setting leaves \
            each process its own ($OPENUN_PENDING_CAP, $OPENUN_AUTHORIZATION, or the defaults). `unotifyd \
            --pending-cap` and `--authorization` write them too.
            """,
        subcommands: [ConfigGet.self, ConfigSet.self, ConfigUnset.self], defaultSubcommand: ConfigGet.self)
}

/// A setting's name on the command line.
enum SettingName: String, ExpressibleByArgument, CaseIterable {
    case pendingCap = "pending-cap"
    case authorization
}

struct ConfigGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Print the store's settings.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "One setting (pending-cap, authorization); all by default.") var name: SettingName?

    func run() async throws {
        try await reportingErrors {
            let policy = try await openStore(global).policy()
            let values: [(SettingName, String?)] = [
                (.pendingCap, policy.pendingCap?.description), (.authorization, policy.authorizationPolicy?.rawValue),
            ]
            let shown = values.filter { name == nil || $0.0 == name }
            if global.json {
                try CLIOutput.printJSON(
                    Dictionary(uniqueKeysWithValues: shown.map { ($0.0.rawValue, $0.1 as Any? ?? NSNull()) }))
                return
            }
            for (setting, value) in shown { CLIOutput.print("\(setting.rawValue) \(value ?? "unset")") }
        }
    }
}

struct ConfigSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Change a setting for every process on the store, at once.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "pending-cap or authorization.") var name: SettingName
    @Argument(help: "pending-cap: off or a whole number; authorization: grant or deny.") var value: String

    func validate() throws {
        switch name {
        case .pendingCap:
            guard StorePolicy.PendingCap(value) != nil else {
                throw ValidationError("pending-cap takes off or a whole number from 0 up, not '\(value)'")
            }
        case .authorization:
            guard AuthorizationPolicy(rawValue: value) != nil else {
                throw ValidationError("authorization takes grant or deny, not '\(value)'")
            }
        }
    }

    func run() async throws {
        try await reportingErrors {
            let store = try openStore(global)
            var policy = try await store.policy()
            switch name {
            case .pendingCap: policy.pendingCap = StorePolicy.PendingCap(value)
            case .authorization: policy.authorizationPolicy = AuthorizationPolicy(rawValue: value)
            }
            try await store.setPolicy(policy)
            CLIOutput.print("\(name.rawValue) \(value)")
        }
    }
}

struct ConfigUnset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset", abstract: "Remove a setting: each process applies its own again.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "pending-cap or authorization.") var name: SettingName

    func run() async throws {
        try await reportingErrors {
            let store = try openStore(global)
            var policy = try await store.policy()
            switch name {
            case .pendingCap: policy.pendingCap = nil
            case .authorization: policy.authorizationPolicy = nil
            }
            try await store.setPolicy(policy)
            CLIOutput.print("\(name.rawValue) unset")
        }
    }
}

/// The store file the command names, opened directly: settings (and APNs fault rules) live in the file, whichever
/// process serves it.
func openStore(_ global: GlobalOptions) throws -> SQLiteNotificationStore {
    let path = storePath(global)
    do {
        return try SQLiteNotificationStore(path: path)
    } catch {
        throw CLIError("cannot open the notification store at \(path): \(error)")
    }
}
