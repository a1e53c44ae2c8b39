import ArgumentParser
import Foundation
import NotificationClient
import NotificationDelivery
import NotificationDesktop
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import NotificationWire
import OpenUserNotifications

/// What a command works on: the daemon when one runs, otherwise the engine in this process over the user's store.
struct CLIContext {
    /// Where requests go.
    let backend: any NotificationBackend
    /// Set in embedded mode: the engine itself (for `watch`).
    let scheduler: NotificationScheduler?
    let daemon: DaemonBackend?
    let storePath: String
    let appID: String
    let configuration: OpenUserNotificationsConfiguration

    init(_ options: GlobalOptions) throws {
        var configuration = OpenUserNotificationsConfiguration.fromEnvironment()
        if let store = options.store { configuration.storePath = store }
        if let mode = options.mode { configuration.mode = mode }
        if let socket = options.socket { configuration.socketPath = socket }
        self.configuration = configuration
        storePath = configuration.resolvedStorePath
        appID = options.app
        let socket = configuration.resolvedSocketPath
        let useDaemon =
            switch configuration.mode {
            case .daemon: true
            case .embedded: false
            case .automatic: options.store == nil && DaemonBackend.isListening(at: socket)
            }
        if useDaemon {
            let daemon = DaemonBackend(socketPath: socket)
            self.daemon = daemon
            backend = daemon
            scheduler = nil
            if options.verbose { Self.say("unotify: daemon mode, socket \(socket), app \(appID)") }
            return
        }
        let store: SQLiteNotificationStore
        do {
            store = try SQLiteNotificationStore(path: storePath)
        } catch {
            guard SQLiteNotificationStore.isDamage(error) else {
                throw CLIError("cannot open the notification store at \(storePath): \(error)")
            }
            throw CLIError(
                "the store at \(storePath) is damaged (\(error)): see `unotify store check`, and `unotify store "
                    + "recover`, which keeps the damaged file beside the new one", exitStatus: 65)
        }
        // `watch` delivers here: on the desktop when it has a notification server (and in the terminal too).
        let environment = ProcessInfo.processInfo.environment
        let relay = ResponseRelay()
        let presenter = AutomaticPresenter(
            AutomaticPresenter.choice(environment: environment), terminal: TerminalPresenter(output: .standardOutput),
            echoesToTerminal: true, environment: environment, sounds: .standard(environment: environment),
            onResponse: relay.handler)
        let scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: presenter,
            configuration: configuration.engineConfiguration, launcher: LaunchCommandLauncher(store: store),
            serviceExtensionHost: ServiceExtensionProcessHost(
                store: store, attachmentStoreRoot: configuration.engineConfiguration.attachmentStoreRoot))
        relay.connect(scheduler)
        self.scheduler = scheduler
        backend = scheduler
        daemon = nil
        if options.verbose { Self.say("unotify: embedded mode, store \(storePath), app \(appID)") }
    }

    /// A center acting as the app (not registered as running, so the presenter shows its notifications).
    var center: UNUserNotificationCenter {
        UNUserNotificationCenter(bundleIdentifier: appID, backend: backend, configuration: configuration)
    }

    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A command-line error: printed as one line, exit status 1 unless another is given (65 for a damaged store).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    let exitStatus: Int32
    init(_ description: String, exitStatus: Int32 = 1) {
        self.description = description
        self.exitStatus = exitStatus
    }
}

extension AsyncParsableCommand {
    /// Runs a command body, turning library errors into one clear line.
    func reportingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CLIError where error.exitStatus != 1 {
            // ArgumentParser ends every other error with status 1: say it as it would, and exit with ours.
            CLIContext.say("Error: \(error.description)")
            throw ExitCode(error.exitStatus)
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
        } catch let error as WireFailure {
            throw CLIError(error.message)
        }
    }
}
