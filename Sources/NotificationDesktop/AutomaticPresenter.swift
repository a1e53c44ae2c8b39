import DBusKit
import Foundation
import Logging
import NotificationDelivery
import NotificationEngine
import NotificationModel
import Synchronization

/// Shows notifications on the desktop when the session bus has a notification server, and in the terminal
/// otherwise: the presenter of the daemon and of embedded mode.
///
/// The choice is made at the first notification, not at start-up, so a daemon started before the desktop's
/// notification server still uses it: while no server is found, each notification looks again (one bus call).
/// A notification the server refuses (it went away) is shown in the terminal instead. Without a session bus at
/// all (`DBUS_SESSION_BUS_ADDRESS` unset and no `$XDG_RUNTIME_DIR/bus`), or without the system's libdbus-1 (one
/// warning says so), everything goes to the terminal.
///
/// ```swift
/// let relay = ResponseRelay()
/// let presenter = AutomaticPresenter(
///     .automatic, terminal: TerminalPresenter(), sounds: .standard(), onResponse: relay.handler)
/// ```
public actor AutomaticPresenter: NotificationPresenter {
    /// Where notifications go.
    public enum Choice: String, Sendable, CaseIterable {
        /// The desktop when it has a notification server, the terminal otherwise.
        case automatic
        /// The desktop only (nothing is shown while there is no server; logged).
        case desktop
        /// The terminal only.
        case terminal
    }

    /// The choice `OPENUN_PRESENTER` names (`automatic`, `desktop` or `terminal`); automatic when unset or unknown.
    public static func choice(environment: [String: String]) -> Choice {
        environment["OPENUN_PRESENTER"].flatMap(Choice.init(rawValue:)) ?? .automatic
    }

    /// `desktop` or `terminal`: where the last notification went (`terminal` before the first).
    public nonisolated var name: String { current.withLock { $0 } }

    private let choice: Choice
    private let terminal: TerminalPresenter
    private let echoesToTerminal: Bool
    private let environment: [String: String]
    private let sounds: DesktopSounds?
    private let logger: Logger
    private let onResponse: DesktopPresenter.ResponseHandler
    private let current = Mutex("terminal")
    private var desktop: DesktopPresenter?
    private var noBus = false
    /// The last badge of each app, published again when a desktop appears.
    private var badges: [String: Int] = [:]

    /// Creates the presenter.
    ///
    /// - Parameters:
    ///   - choice: Desktop, terminal, or whichever is there.
    ///   - terminal: The terminal presenter.
    ///   - echoesToTerminal: Whether notifications shown on the desktop are also written to the terminal (for
    ///     `unotify watch`).
    ///   - environment: Where the session bus address is found.
    ///   - sounds: Sounds for the desktop presenter.
    ///   - logger: Where the choice is logged.
    ///   - onResponse: Receives the answers of desktop notifications (see ``DesktopPresenter``).
    public init(
        _ choice: Choice, terminal: TerminalPresenter, echoesToTerminal: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment, sounds: DesktopSounds? = nil,
        logger: Logger = Logger(label: "OpenUserNotifications.desktop"),
        onResponse: @escaping DesktopPresenter.ResponseHandler
    ) {
        self.choice = choice
        self.terminal = terminal
        self.echoesToTerminal = echoesToTerminal
        self.environment = environment
        self.sounds = sounds
        self.logger = logger
        self.onResponse = onResponse
    }

    /// The session bus address: `DBUS_SESSION_BUS_ADDRESS`, else systemd's `$XDG_RUNTIME_DIR/bus` when it exists.
    public static func sessionBusAddress(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        let socket = runtime + "/bus"
        return FileManager.default.fileExists(atPath: socket) ? "unix:path=" + socket : nil
    }

    public func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async
    {
        if let desktop = await desktopPresenter(),
            await desktop.show(notification, options: options, category: category)
        {
            current.withLock { $0 = "desktop" }
            if echoesToTerminal { await terminal.present(notification, options: options, category: category) }
            return
        }
        guard choice != .desktop else {
            logger.warning("\(notification.appID)/\(notification.identifier) not shown: no desktop notification server")
            return
        }
        current.withLock { $0 = "terminal" }
        await terminal.present(notification, options: options, category: category)
    }

    public func withdraw(appID: String, identifiers: [String]) async {
        await desktop?.withdraw(appID: appID, identifiers: identifiers)
        if desktop == nil || echoesToTerminal { await terminal.withdraw(appID: appID, identifiers: identifiers) }
    }

    public func badgeDidChange(appID: String, count: Int) async {
        if choice != .desktop { await terminal.badgeDidChange(appID: appID, count: count) }
        // Connecting republishes the badges remembered so far; this one is published once, below.
        let desktop = await desktopPresenter()
        badges[appID] = count
        await desktop?.badgeDidChange(appID: appID, count: count)
    }

    /// Closes the desktop connection, if one was opened.
    public func close() async {
        await desktop?.close()
        desktop = nil
    }

    /// The desktop presenter, connecting on first need; `nil` while the bus has no notification server.
    private func desktopPresenter() async -> DesktopPresenter? {
        guard choice != .terminal, !noBus else { return nil }
        if let desktop { return desktop }
        do {
            try DBusLibrary.load(environment: environment)
        } catch {
            noBus = true
            logger.warning("no desktop notifications: \(error.message) (install libdbus-1-3); notifications go to the terminal")
            return nil
        }
        guard let address = Self.sessionBusAddress(environment: environment) else {
            noBus = true
            logger.info("no session bus: notifications go to the terminal")
            return nil
        }
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address)
        } catch {
            logger.debug("cannot reach the session bus (\(error)): this notification goes to the terminal")
            return nil
        }
        guard await DesktopPresenter.busHasServer(connection) else {
            await connection.close()
            logger.debug("the session bus has no notification server yet: this notification goes to the terminal")
            return nil
        }
        let presenter = DesktopPresenter(connection: connection, sounds: sounds, logger: logger, onResponse: onResponse)
        desktop = presenter
        logger.info("notifications go to the desktop's notification server")
        for (appID, count) in badges { await presenter.badgeDidChange(appID: appID, count: count) }
        return presenter
    }
}
