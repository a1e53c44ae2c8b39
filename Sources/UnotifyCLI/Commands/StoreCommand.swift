import ArgumentParser
import Foundation
import NotificationPlatform
import NotificationStoreSQLite
import OpenUserNotifications

/// `unotify store`: look after the store file itself.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Check the store file, or recover what can be read of a damaged one.",
        discussion: """
            The store is $OPENUN_STORE, else $XDG_DATA_HOME/openusernotifications/store.sqlite, or --store. Both \
            commands exit with status 65 when the file is damaged, 0 when it is sound.
            """,
        subcommands: [StoreCheck.self, StoreRecover.self])
}

/// `unotify store check`: SQLite's integrity check and the rows of each table, without changing anything.
struct StoreCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check the store's integrity and count its rows (read-only).")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Only SQLite's quick check (no index cross-checks): faster on a large store.") var quick = false

    func run() async throws {
        let path = storePath(global)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no store at \(path)") }
        let report: SQLiteNotificationStore.CheckReport
        do {
            report = try SQLiteNotificationStore(readOnlyAt: path).check(thorough: !quick)
        } catch {
            report = SQLiteNotificationStore.CheckReport(problems: ["\(error)"], counts: [:])
        }
        if global.json {
            try CLIOutput.printJSON(
                ["store": path, "sound": report.isSound, "problems": report.problems, "counts": report.counts]
                    as [String: Any])
        } else {
            let counts = report.counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            CLIOutput.print("\(path): \(report.isSound ? "sound" : "DAMAGED")\(counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))")")
            for problem in report.problems.prefix(20) { CLIOutput.print("  \(problem)") }
        }
        guard report.isSound else {
            CLIContext.say("unotify: the store is damaged: `unotify store recover` keeps it aside and recovers what it can")
            throw ExitCode(65)
        }
    }
}

/// `unotify store recover`: move the damaged file aside and copy every readable row into a new store.
struct StoreRecover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Keep a damaged store aside (renamed, never overwritten) and recover its readable rows into a new one.",
        discussion: "Refuses while unotifyd serves the store: stop it first.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Recover even when the check finds the store sound.") var force = false

    func run() async throws {
        let path = storePath(global)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no store at \(path)") }
        // The daemon's lock: held while it serves the store, and by us while we replace the file.
        let lock: ExclusiveFileLock
        switch try ExclusiveFileLock.acquire(path: path + "-daemon.lock", owner: "unotify store recover, pid \(getpid())") {
        case .acquired(let acquired): lock = acquired
        case .heldByOther(let owner): throw CLIError("unotifyd serves \(path) (\(owner)): stop it first")
        }
        defer { lock.release() }
        let sound = (try? SQLiteNotificationStore(readOnlyAt: path).check(thorough: true).isSound) ?? false
        guard !sound || force else {
            CLIOutput.print("\(path) is sound: nothing to recover (--force to rebuild it anyway)")
            return
        }
        let report: SQLiteNotificationStore.RecoveryReport
        do {
            report = try SQLiteNotificationStore.recover(path: path)
        } catch {
            throw CLIError("cannot recover \(path): \(error)")
        }
        if global.json {
            try CLIOutput.printJSON(
                ["store": path, "damagedCopy": report.damagedCopy, "recovered": report.recovered, "lost": report.lost]
                    as [String: Any])
            return
        }
        let recovered = report.recovered.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        let lost = report.lost.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        CLIOutput.print("recovered into \(path): \(recovered.isEmpty ? "nothing" : recovered.joined(separator: ", "))")
        if !lost.isEmpty { CLIOutput.print("lost (unreadable): \(lost.joined(separator: ", "))") }
        CLIOutput.print("the damaged file is kept at \(report.damagedCopy)")
    }
}

/// The store a command names: --store, else the configuration's (environment and XDG folders).
func storePath(_ global: GlobalOptions) -> String {
    if let store = global.store { return store }
    return OpenUserNotificationsConfiguration.fromEnvironment().resolvedStorePath
}
