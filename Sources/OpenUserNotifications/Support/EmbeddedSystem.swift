import Foundation
import Logging
import NotificationDelivery
import NotificationEngine
import NotificationStoreSQLite

/// Embedded mode: the engine runs inside the app's process, over the SQLite store every process of the user
/// shares, delivering through the terminal presenter.
final class EmbeddedSystem: Sendable {
    static let shared = EmbeddedSystem(configuration: .current)

    let center: UNUserNotificationCenter
    let scheduler: NotificationScheduler
    private let loop: Task<Void, Never>
    private let monitor: StoreFileMonitor?

    init(configuration: OpenUserNotificationsConfiguration) {
        let logger = Logger(label: "OpenUserNotifications")
        let store: any NotificationStore
        do {
            store = try SQLiteNotificationStore(path: configuration.resolvedStorePath)
        } catch {
            logger.error("cannot open the notification store at \(configuration.resolvedStorePath): \(error); using memory")
            store = try! SQLiteNotificationStore(inMemory: ())  // an in-memory SQLite database cannot fail to open
        }
        let appID = AppIdentity.resolve(configured: configuration.bundleIdentifier, executableURL: Platform.executableURL)
        var engineConfiguration = configuration.engineConfiguration
        engineConfiguration.deliveryScope = appID  // the app's process delivers its own notifications only
        scheduler = NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: TerminalPresenter(output: .standardError),
            configuration: engineConfiguration, logger: logger)
        center = UNUserNotificationCenter(bundleIdentifier: appID, backend: scheduler, configuration: configuration)
        let scheduler = scheduler
        monitor = StoreFileMonitor(storePath: configuration.resolvedStorePath) { scheduler.storeDidChange() }
        loop = Task { await scheduler.run() }
        center.attachAsForeground()
    }
}
