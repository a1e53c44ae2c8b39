import ArgumentParser
import Foundation
import NotificationDelivery
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotifications

/// The engine a command works on: the user's store, the system clock and the terminal presenter.
struct CLIContext {
    let scheduler: NotificationScheduler
    let storePath: String
    let appID: String

    init(_ options: GlobalOptions) throws {
        var configuration = OpenUserNotificationsConfiguration.fromEnvironment()
        if let store = options.store { configuration.storePath = store }
        storePath = configuration.resolvedStorePath
        appID = options.app
        let store: SQLiteNotificationStore
        do {
            store = try SQLiteNotificationStore(path: storePath)
        } catch {
            throw CLIError("cannot open the notification store at \(storePath): \(error)")
        }
        scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: TerminalPresenter(output: .standardOutput),
            configuration: configuration.engineConfiguration)
        if options.verbose {
            FileHandle.standardError.write(Data("unotify: embedded mode, store \(storePath), app \(appID)\n".utf8))
        }
    }

    /// A center acting as the app (not registered as running, so the terminal presents).
    var center: UNUserNotificationCenter {
        UNUserNotificationCenter(
            bundleIdentifier: appID, backend: scheduler, configuration: OpenUserNotificationsConfiguration.fromEnvironment())
    }
}

/// A command-line error: printed as one line, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension AsyncParsableCommand {
    /// Runs a command body, turning library errors into one clear line.
    func reportingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CLIError {
            throw error
        } catch let error as ValidationError {
            throw CLIError(error.message)
        } catch let error as EngineError {
            throw CLIError(error.message)
        } catch let error as UNError {
            throw CLIError(error.localizedReason)
        } catch let error as NotificationRequestError {
            throw CLIError(error.message)
        }
    }
}
