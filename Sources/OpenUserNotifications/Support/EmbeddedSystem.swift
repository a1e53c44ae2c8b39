import Foundation
import Logging
import NotificationClient
import NotificationDelivery
import NotificationDesktop
import NotificationEngine
import NotificationStoreSQLite

/// The system behind `UNUserNotificationCenter.current()`: the per-user daemon when one runs (or the
/// configuration says so), otherwise the engine inside this process.
final class SharedSystem: Sendable {
    static let shared = SharedSystem(configuration: .current)

    let center: UNUserNotificationCenter
    /// Set in embedded mode.
    let embedded: EmbeddedSystem?

    init(configuration: OpenUserNotificationsConfiguration) {
        let appID = AppIdentity.resolve(configured: configuration.bundleIdentifier, executableURL: Platform.executableURL)
        let socket = configuration.resolvedSocketPath
        let useDaemon =
            switch configuration.mode {
            case .daemon: true
            case .embedded: false
            case .automatic: DaemonBackend.isListening(at: socket)
            }
        if useDaemon {
            embedded = nil
            center = UNUserNotificationCenter(
                bundleIdentifier: appID, backend: DaemonBackend(socketPath: socket), configuration: configuration)
        } else {
            let system = EmbeddedSystem(configuration: configuration, appID: appID)
            embedded = system
            center = UNUserNotificationCenter(bundleIdentifier: appID, backend: system.scheduler, configuration: configuration)
        }
        center.attachAsForeground()
    }
}

/// Embedded mode: the engine runs inside the app's process, over the SQLite store every process of the user
/// shares, delivering the app's own notifications on the desktop when the session bus has a notification server,
/// and in the terminal otherwise (`OPENUN_PRESENTER` chooses: automatic, desktop or terminal).
final class EmbeddedSystem: Sendable {
    let scheduler: NotificationScheduler
    private let loop: Task<Void, Never>
    private let monitor: StoreFileMonitor?

    init(configuration: OpenUserNotificationsConfiguration, appID: String) {
        let logger = Logger(label: "OpenUserNotifications")
        let store: any NotificationStore
        do {
            store = try SQLiteNotificationStore(path: configuration.resolvedStorePath)
        } catch {
            logger.error("cannot open the notification store at \(configuration.resolvedStorePath): \(error); using memory")
            store = try! SQLiteNotificationStore(inMemory: ())  // an in-memory SQLite database cannot fail to open
        }
        var engineConfiguration = configuration.engineConfiguration
        engineConfiguration.deliveryScope = appID  // the app's process delivers its own notifications only
        let environment = ProcessInfo.processInfo.environment
        let relay = ResponseRelay(logger: logger)
        let presenter = AutomaticPresenter(
            AutomaticPresenter.choice(environment: environment), terminal: TerminalPresenter(output: .standardError),
            environment: environment, sounds: .standard(environment: environment, logger: logger), logger: logger,
            onResponse: relay.handler)
        scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: presenter, configuration: engineConfiguration,
            logger: logger, launcher: LaunchCommandLauncher(store: store),
            serviceExtensionHost: ServiceExtensionProcessHost(
                store: store, attachmentStoreRoot: engineConfiguration.attachmentStoreRoot, logger: logger))
        let scheduler = scheduler
        relay.connect(scheduler)
        // Only another process's writes wake the loop; the engine knows its own.
        let sqliteStore = store as? SQLiteNotificationStore
        _ = sqliteStore?.changedElsewhere()
        monitor =
            if let sqliteStore {
                StoreFileMonitor(watching: sqliteStore, at: configuration.resolvedStorePath) {
                    scheduler.storeDidChange()
                }
            } else {
                StoreFileMonitor(storePath: configuration.resolvedStorePath) { scheduler.storeDidChange() }
            }
        loop = Task { await scheduler.run() }
    }
}
