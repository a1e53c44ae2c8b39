import DBusKit
import Foundation
import Logging
import NotificationEngine
import NotificationModel

/// Shows notifications through the desktop's notification server (`org.freedesktop.Notifications`: dunst, GNOME
/// Shell, KDE Plasma, notification-daemon, mako...) and reports what a person does with them.
///
/// The presenter asks the server for its information and capabilities once, on first use, and adapts: without the
/// `actions` capability it sends no buttons, with `body-markup` it escapes `&`, `<` and `>` in the body; it logs
/// what it had to leave out (see ``NotifyRequest``).
///
/// Each notification is identified on screen by its app and identifier: presenting the same pair again passes the
/// server's id as `replaces_id`, so the notification is updated in place, and ``withdraw(appID:identifiers:)``
/// calls `CloseNotification`.
///
/// A person's answers arrive as signals on the presenter's own connection (dunst sends them only to the connection
/// that called `Notify`; a match rule covers servers that broadcast them) and go to `onResponse`:
/// - `ActionInvoked(id, "default")` answers ``ResponseSpec/defaultActionIdentifier``, another key answers that
///   action's identifier;
/// - `NotificationClosed(id, 2)` (dismissed by the person) answers ``ResponseSpec/dismissActionIdentifier``, unless
///   an action was already invoked on that notification (servers such as notification-daemon close a notification
///   after its button is clicked);
/// - other closes (expired, closed by ``withdraw(appID:identifiers:)``, undefined) answer nothing;
/// - `NotificationReplied(id, text)` (KDE Plasma's inline reply) answers the category's first text-input action
///   with that text.
///
/// ```swift
/// let relay = ResponseRelay()
/// let presenter = try DesktopPresenter.sessionBus(onResponse: relay.handler)
/// relay.connect(scheduler)  // the scheduler built with `presenter`
/// ```
///
/// Badges go to the docks through ``LauncherBadge``. Sounds: a server with the `sound` capability gets the
/// `sound-file` or `sound-name` hint; for the others (dunst), ``DesktopSounds`` plays the sound itself, when one
/// was given. What a server cannot show is logged, once per notification (see ``NotifyRequest``).
public actor DesktopPresenter: NotificationPresenter {
    /// Receives a person's answer: the app, the notification's identifier and the action's identifier (Apple's
    /// default or dismiss identifier, or one of the category's actions).
    public typealias ResponseHandler =
        @Sendable (
            _ appID: String, _ notificationIdentifier: String, _ actionIdentifier: String, _ userText: String?
        ) async -> Void

    public nonisolated let name = "desktop"

    private static let service = "org.freedesktop.Notifications"
    private static let objectPath = "/org/freedesktop/Notifications"
    private static let interface = "org.freedesktop.Notifications"
    /// `NotificationClosed` reasons of the specification.
    private static let dismissedByUser: UInt32 = 2

    private let connection: DBusConnection
    private let logger: Logger
    private let onResponse: ResponseHandler
    private let sounds: DesktopSounds?
    private let badge: LauncherBadge
    /// The text-input action of each notification shown with an inline reply field.
    private var replyActions: [UInt32: String] = [:]
    private var serverLoad: Task<NotificationServerInfo?, Never>?
    private var serverIDs: [Key: UInt32] = [:]
    private var keys: [UInt32: Key] = [:]
    /// Notifications on which an action was invoked: their later close is not a dismissal.
    private var answered: Set<UInt32> = []

    private struct Key: Hashable {
        var appID: String
        var identifier: String
    }

    /// Creates a presenter on `connection`, which it listens to for the server's signals from now on.
    ///
    /// - Parameters:
    ///   - connection: A session-bus connection; the presenter sends its calls and receives its signals on it.
    ///   - sounds: Finds named sounds and plays sounds for servers that play none; `nil` plays nothing.
    ///   - logger: Where unavailable features and failures are reported.
    ///   - onResponse: Called, one answer at a time and in order, for each response (see the type's discussion).
    public init(
        connection: DBusConnection, sounds: DesktopSounds? = nil,
        logger: Logger = Logger(label: "OpenUserNotifications.desktop"), onResponse: @escaping ResponseHandler
    ) {
        self.connection = connection
        self.logger = logger
        self.onResponse = onResponse
        self.sounds = sounds
        self.badge = LauncherBadge(connection: connection)
        let signals = connection.signals()
        Task { [weak self] in
            for await signal in signals {
                guard let self else { return }
                await self.handle(signal)
            }
        }
    }

    /// Creates a presenter on a new connection to the session bus named by `DBUS_SESSION_BUS_ADDRESS`.
    ///
    /// - Throws: ``DBusFailure`` when there is no session bus or it cannot be reached.
    public static func sessionBus(
        environment: [String: String] = ProcessInfo.processInfo.environment, sounds: DesktopSounds? = nil,
        logger: Logger = Logger(label: "OpenUserNotifications.desktop"), onResponse: @escaping ResponseHandler
    ) throws(DBusFailure) -> DesktopPresenter {
        DesktopPresenter(
            connection: try DBusConnection.sessionBus(environment: environment), sounds: sounds, logger: logger,
            onResponse: onResponse)
    }

    /// What the server said about itself, asked once (again only after a failure).
    ///
    /// - Returns: The server's information, or `nil` when no server answered (the failure is logged).
    public func serverInfo() async -> NotificationServerInfo? {
        if let serverLoad, let info = await serverLoad.value { return info }
        let load = Task { [connection, logger] () -> NotificationServerInfo? in
            do {
                try await connection.addMatch(
                    "type='signal',interface='\(Self.interface)',path='\(Self.objectPath)'")
                let information = try await connection.call(Self.call("GetServerInformation"))
                let capabilities = try await connection.call(Self.call("GetCapabilities"))
                let strings = information.compactMap(\.stringValue)
                let info = NotificationServerInfo(
                    name: strings.first ?? "", vendor: strings.count > 1 ? strings[1] : "",
                    version: strings.count > 2 ? strings[2] : "",
                    specificationVersion: strings.count > 3 ? strings[3] : "",
                    capabilities: Set(capabilities.first?.stringsValue ?? []))
                logger.info(
                    "notification server \(info.name) \(info.version) (spec \(info.specificationVersion)), capabilities: \(info.capabilities.sorted().joined(separator: ", "))"
                )
                return info
            } catch {
                logger.error("no notification server answered: \(error)")
                return nil
            }
        }
        serverLoad = load
        return await load.value
    }

    public func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async
    {
        _ = await show(notification, options: options, category: category)
    }

    /// Shows a notification, as ``present(_:options:category:)`` does, and tells whether the server took it.
    ///
    /// - Returns: `false` when no server answered or `Notify` failed (logged); `true` otherwise, also when the
    ///   options make the notification invisible.
    public func show(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async
        -> Bool
    {
        guard options.isVisible else {
            logger.debug("\(notification.appID)/\(notification.identifier) is not shown (options: \(options.names))")
            return true
        }
        guard let server = await serverInfo() else { return false }
        let wantsSound = options.contains(.sound) && notification.request.content.sound != nil
        let soundFile = wantsSound ? sounds?.file(for: notification) : nil
        let senderImageData = notification.request.content.communication?.senderImageData
        let senderImage = senderImageData.flatMap(SenderImageFiles.file(for:))
        let request = NotifyRequest(
            notification, options: options, category: category, server: server, soundFile: soundFile?.path,
            senderImageFile: senderImage)
        if !request.leftOut.isEmpty {
            logger.notice(
                "\(server.name) cannot show all of \(notification.appID)/\(notification.identifier): left out \(request.leftOut.joined(separator: "; "))"
            )
        }
        let key = Key(appID: notification.appID, identifier: notification.identifier)
        do {
            let reply = try await connection.call(
                Self.call("Notify", request.arguments(replacing: serverIDs[key] ?? 0)))
            guard let id = reply.first?.uint32Value else {
                logger.error("Notify answered \(reply) instead of an id")
                return false
            }
            if let previous = serverIDs[key], previous != id {
                keys[previous] = nil
                replyActions[previous] = nil
            }
            serverIDs[key] = id
            keys[id] = key
            replyActions[id] = request.inlineReplyAction
            answered.remove(id)
        } catch {
            logger.error("cannot show \(notification.appID)/\(notification.identifier): \(error)")
            return false
        }
        if request.needsSoundPlayback, let sounds {
            await sounds.play(soundFile, for: notification)
        }
        return true
    }

    /// Whether the bus has a notification server: one that owns `org.freedesktop.Notifications` now, or one the
    /// bus starts on demand (D-Bus activation, as dunst's package installs).
    public static func busHasServer(_ connection: DBusConnection) async -> Bool {
        func busCall(_ member: String, _ arguments: [DBusValue]) async -> [DBusValue]? {
            try? await connection.call(
                DBusMethodCall(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: member, arguments: arguments), timeout: .seconds(5))
        }
        if case .boolean(true) = await busCall("NameHasOwner", [.string(service)])?.first { return true }
        return await busCall("ListActivatableNames", [])?.first?.stringsValue?.contains(service) ?? false
    }

    public func withdraw(appID: String, identifiers: [String]) async {
        for identifier in identifiers {
            guard let id = serverIDs.removeValue(forKey: Key(appID: appID, identifier: identifier)) else { continue }
            keys[id] = nil
            replyActions[id] = nil
            answered.remove(id)
            do {
                _ = try await connection.call(Self.call("CloseNotification", [.uint32(id)]))
            } catch {
                logger.warning("cannot close \(appID)/\(identifier) (id \(id)): \(error)")
            }
        }
    }

    public func badgeDidChange(appID: String, count: Int) async {
        do {
            try await badge.publish(appID: appID, count: count)
            logger.debug("badge \(appID): \(count), published to the launcher")
        } catch {
            logger.warning("cannot publish the badge of \(appID): \(error)")
        }
    }

    /// Closes the presenter's connection; it shows nothing and reports nothing afterwards.
    public func close() async {
        await connection.close()
    }

    /// The server's id for a notification on screen, for tests and diagnostics.
    public func serverID(appID: String, identifier: String) -> UInt32? {
        serverIDs[Key(appID: appID, identifier: identifier)]
    }

    private func handle(_ signal: DBusSignal) async {
        guard signal.interface == Self.interface, signal.path == Self.objectPath,
            let id = signal.arguments.first?.uint32Value
        else { return }
        switch signal.member {
        case "ActionInvoked":
            guard let key = keys[id], signal.arguments.count > 1, let action = signal.arguments[1].stringValue else {
                return
            }
            answered.insert(id)
            if action == NotifyRequest.inlineReplyActionKey { return }  // the reply itself follows
            let identifier = action == NotifyRequest.defaultActionKey ? ResponseSpec.defaultActionIdentifier : action
            await onResponse(key.appID, key.identifier, identifier, nil)
        case "NotificationReplied":
            guard let key = keys[id], let action = replyActions[id], signal.arguments.count > 1,
                let text = signal.arguments[1].stringValue
            else { return }
            answered.insert(id)
            await onResponse(key.appID, key.identifier, action, text)
        case "NotificationClosed":
            guard let key = keys.removeValue(forKey: id) else { return }
            if serverIDs[key] == id { serverIDs[key] = nil }
            replyActions[id] = nil
            let wasAnswered = answered.remove(id) != nil
            let reason = signal.arguments.count > 1 ? signal.arguments[1].uint32Value : nil
            if reason == Self.dismissedByUser, !wasAnswered {
                await onResponse(key.appID, key.identifier, ResponseSpec.dismissActionIdentifier, nil)
            }
        default:
            return
        }
    }

    private static func call(_ member: String, _ arguments: [DBusValue] = []) -> DBusMethodCall {
        DBusMethodCall(
            destination: service, path: objectPath, interface: interface, member: member, arguments: arguments)
    }
}
