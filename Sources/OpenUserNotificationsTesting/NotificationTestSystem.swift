import Foundation
import NotificationClient
import NotificationDaemon
import NotificationDelivery
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotifications

/// A whole notification system for tests: a manual clock, an in-memory store (or a file), a recording presenter,
/// and centers for any number of apps, all deterministic.
///
/// ```swift
/// let system = try NotificationTestSystem()
/// let center = system.center(for: "com.example.app")
/// try await center.add(UNNotificationRequest(identifier: "a", content: content,
///     trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
/// await system.advance(by: 60)
/// #expect(system.presenter.presentations.map(\.identifier) == ["a"])
/// ```
///
/// Nothing happens on its own: ``advance(by:)`` moves the clock and delivers what fell due before it returns.
public final class NotificationTestSystem: Sendable {
    /// Where the engine runs, as seen from the app.
    public enum Mode: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Centers call the engine directly, as `current()` does without a daemon.
        case embedded
        /// Centers talk to an in-process `unotifyd` over a real Unix socket, as `current()` does with a daemon.
        case daemon

        public var description: String { rawValue }
    }

    public let mode: Mode
    public let clock: ManualNotificationClock
    public let presenter: RecordingPresenter
    public let scheduler: NotificationScheduler
    public let configuration: OpenUserNotificationsConfiguration
    private let daemon: (daemon: NotificationDaemon, task: Task<Void, any Error>, backend: DaemonBackend, folder: URL)?
    /// The attachment data store this system made for itself (none was configured), removed with it.
    private let attachmentFolder: URL?

    /// Creates a system.
    ///
    /// - Parameters:
    ///   - now: The clock's start; 2026-01-05 09:00 UTC (a Monday) by default.
    ///   - timeZone: The system zone.
    ///   - configuration: Pending cap, authorization policy, foreground default.
    ///   - storePath: A SQLite file to use instead of memory (to test restarts).
    ///   - mode: Whether centers call the engine directly or through a daemon on a Unix socket.
    ///   - realPresenter: A presenter that also shows what ``presenter`` records (a desktop presenter whose
    ///     answers go to ``scheduler`` through a `ResponseRelay`).
    public init(
        mode: Mode = .embedded, now: Date = Date(timeIntervalSince1970: 1_767_603_600),
        timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        configuration: OpenUserNotificationsConfiguration = OpenUserNotificationsConfiguration(),
        storePath: String? = nil, presentingThrough realPresenter: (any NotificationPresenter)? = nil
    ) throws {
        self.mode = mode
        clock = ManualNotificationClock(now: now, timeZone: timeZone)
        presenter = RecordingPresenter(forwardingTo: realPresenter)
        var configuration = configuration
        if configuration.attachmentStorePath == nil {
            // Tests never write into the person's data directory.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "unotify-test-attachments-\(UUID().uuidString.prefix(8))")
            configuration.attachmentStorePath = folder.path
            attachmentFolder = folder
        } else {
            attachmentFolder = nil
        }
        self.configuration = configuration
        let store: any NotificationStore =
            if let storePath { try SQLiteNotificationStore(path: storePath) } else { try SQLiteNotificationStore() }
        switch mode {
        case .embedded:
            scheduler = NotificationScheduler(
                store: store, clock: clock, presenter: presenter, configuration: configuration.engineConfiguration,
                launcher: LaunchCommandLauncher(store: store), serviceExtensionHost: ServiceExtensionProcessHost(
                    store: store, attachmentStoreRoot: configuration.resolvedAttachmentStorePath))
            daemon = nil
        case .daemon:
            let folder = URL(fileURLWithPath: "/tmp/unotify-test-\(UUID().uuidString.prefix(8))")
            var daemonConfiguration = DaemonConfiguration(
                socketPath: folder.appendingPathComponent("d.sock").path, storePath: storePath ?? "",
                engine: configuration.engineConfiguration)
            daemonConfiguration.runsEngineLoop = false
            // Restart tests open a second system on the same file while the first one lives on, as a crashed
            // daemon's would not: only one of them may hold the real daemon's lock.
            daemonConfiguration.locksStore = false
            let server = NotificationDaemon(configuration: daemonConfiguration, store: store, clock: clock, presenter: presenter)
            scheduler = server.scheduler
            daemon = (
                server, Task { try await server.run() }, DaemonBackend(socketPath: daemonConfiguration.socketPath), folder
            )
        }
    }

    deinit {
        if let daemon {
            daemon.task.cancel()
            try? FileManager.default.removeItem(at: daemon.folder)
        }
        if let attachmentFolder { try? FileManager.default.removeItem(at: attachmentFolder) }
    }

    /// Creates a second system over the same store and clock, as a process restart does.
    public func restarted() -> NotificationTestSystem {
        NotificationTestSystem(restartingFrom: self)
    }

    private init(restartingFrom other: NotificationTestSystem) {
        mode = .embedded
        daemon = nil
        attachmentFolder = nil
        clock = other.clock
        presenter = other.presenter
        configuration = other.configuration
        scheduler = NotificationScheduler(
            store: other.scheduler.store, clock: clock, presenter: presenter,
            configuration: configuration.engineConfiguration)
    }

    /// A center for an app. The app counts as running once its center has a delegate, so its delegate decides
    /// how notifications are presented; an app whose center has no delegate is "not running" and the presenter
    /// shows its notifications.
    ///
    /// - Parameters:
    ///   - bundleIdentifier: The app.
    ///   - authorize: Grants alert, sound and badge first, as most tests want.
    public func center(for bundleIdentifier: String, authorize: Bool = true) async throws -> UNUserNotificationCenter {
        if authorize {
            try await scheduler.setAuthorization(appID: bundleIdentifier, status: .authorized, options: [.alert, .sound, .badge])
        }
        guard let daemon else {
            return UNUserNotificationCenter(bundleIdentifier: bundleIdentifier, backend: scheduler, configuration: configuration)
        }
        await daemon.daemon.waitUntilListening()
        return UNUserNotificationCenter(bundleIdentifier: bundleIdentifier, backend: daemon.backend, configuration: configuration)
    }

    /// Moves the clock forward and delivers everything that fell due, in order of due date.
    ///
    /// Time moves in steps from one fire date to the next, so a repeating request fires once per period within
    /// the interval, as it would with the engine running throughout.
    @discardableResult
    public func advance(by interval: TimeInterval) async -> Int {
        let target = clock.now.addingTimeInterval(interval)
        var shown = 0
        while let next = try? await scheduler.store.nextWakeDate(), next <= target, next > clock.now {
            clock.set(to: next)
            shown += await scheduler.deliverDue()
        }
        clock.set(to: target)
        shown += await scheduler.deliverDue()
        return shown
    }

    /// Jumps the clock without delivering in between, as when the machine was off, then delivers what is due.
    @discardableResult
    public func jump(by interval: TimeInterval) async -> Int {
        clock.advance(by: interval)
        return await scheduler.deliverDue()
    }

    /// Changes the system zone and re-plans floating calendar triggers.
    public func setTimeZone(_ zone: TimeZone) async throws {
        clock.setTimeZone(zone)
        try await scheduler.timeZoneDidChange()
    }

    /// Answers a delivered notification as a person would.
    ///
    /// - Parameters:
    ///   - identifier: The delivered notification's request identifier.
    ///   - app: Its app.
    ///   - actionIdentifier: An action of its category, `UNNotificationDefaultActionIdentifier` (a tap) or
    ///     `UNNotificationDismissActionIdentifier`.
    ///   - text: The text for a text-input action.
    /// - Returns: Whether the response goes to the app.
    @discardableResult
    public func respond(
        to identifier: String, app: String, actionIdentifier: String = UNNotificationDefaultActionIdentifier,
        text: String? = nil
    ) async throws -> Bool {
        try await scheduler.respond(
            appID: app, notificationIdentifier: identifier, actionIdentifier: actionIdentifier, userText: text)
    }

    /// The app's history, newest first.
    public func history(app: String? = nil) async throws -> [NotificationHistoryEntry] {
        try await scheduler.history(appID: app, limit: 10_000)
    }

    /// Waits until every operation queued on the center so far has run (fire-and-forget calls included).
    public func settle(_ center: UNUserNotificationCenter) async {
        await center.settle()
    }
}
