import Logging
import NotificationModel
import Synchronization

/// Carries a person's answers from a presenter (the buttons of a desktop notification) to the engine that
/// delivered the notification.
///
/// A presenter exists before its engine (the engine takes it in its initializer), so the composition root
/// creates a relay first, gives ``handler`` to the presenter, and connects the engine once it exists. Answers
/// that arrive before that are logged and dropped.
///
/// ```swift
/// let relay = ResponseRelay()
/// let presenter = DesktopPresenter(connection: bus, onResponse: relay.handler)
/// let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter)
/// relay.connect(scheduler)
/// ```
public final class ResponseRelay: Sendable {
    /// The engine, held weakly: it owns the presenter, which owns ``handler`` and so this relay, and a strong
    /// reference back would keep the engine, its store and its open files alive for ever once its owner let go.
    private let scheduler = Mutex<WeakScheduler>(WeakScheduler())
    private let logger: Logger

    /// Creates a relay that reports answers it cannot hand over to `logger`.
    public init(logger: Logger = Logger(label: "OpenUserNotifications.responses")) {
        self.logger = logger
    }

    /// Hands answers to `scheduler` from now on, as long as something else keeps it alive (the relay holds it weakly).
    public func connect(_ scheduler: NotificationScheduler) {
        self.scheduler.withLock { $0.value = scheduler }
    }

    /// The closure to give a presenter: it calls ``respond(appID:notificationIdentifier:actionIdentifier:userText:)``.
    public var handler: @Sendable (String, String, String, String?) async -> Void {
        { [self] appID, identifier, action, text in
            await respond(appID: appID, notificationIdentifier: identifier, actionIdentifier: action, userText: text)
        }
    }

    /// Hands one answer to the engine, which stores it and routes it to the app (see
    /// ``NotificationScheduler/respond(appID:notificationIdentifier:actionIdentifier:userText:)``); a refusal is
    /// logged.
    public func respond(appID: String, notificationIdentifier: String, actionIdentifier: String, userText: String?)
        async
    {
        do {
            try await forward(
                appID: appID, notificationIdentifier: notificationIdentifier, actionIdentifier: actionIdentifier,
                userText: userText)
        } catch {
            logger.warning(
                "the response '\(actionIdentifier)' to \(appID)/\(notificationIdentifier) was refused: \(error)")
        }
    }

    /// Hands one answer to the engine, as ``respond(appID:notificationIdentifier:actionIdentifier:userText:)`` does,
    /// for a presenter that shows the refusal to the person (the web center).
    ///
    /// - Returns: Whether the response is (or will be) handed to the app.
    /// - Throws: The engine's ``EngineError`` (`unknownNotification`, `unknownAction`), or `unavailable` when no
    ///   engine is connected yet.
    @discardableResult
    public func forward(appID: String, notificationIdentifier: String, actionIdentifier: String, userText: String?)
        async throws -> Bool
    {
        guard let scheduler = scheduler.withLock({ $0.value }) else {
            logger.warning("a response to \(appID)/\(notificationIdentifier) arrived before the engine: dropped")
            throw EngineError(.unavailable, "the engine is not running yet")
        }
        return try await scheduler.respond(
            appID: appID, notificationIdentifier: notificationIdentifier, actionIdentifier: actionIdentifier,
            userText: userText)
    }
}

/// A weak reference to an engine, for ``ResponseRelay``.
private struct WeakScheduler: Sendable {
    weak var value: NotificationScheduler?
}
