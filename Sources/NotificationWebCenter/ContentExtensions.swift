import Foundation
import NotificationEngine
import NotificationModel
import Synchronization

/// The content extensions the center knows: those registered in this process and those apps declared in the store
/// (``ContentExtensionDeclaration``, an executable run by ``ProcessContentExtension``); the views they drew, kept
/// while their notifications are listed; and the time and size limits every answer is held to.
///
/// An extension registered here for an app is asked before the app's declared executable, as a running app's
/// service extension is. A view is asked for once per delivered notification (a live update of the page does not
/// start the executable again) and again after an action the extension kept the notification for, so it can show
/// the new state. An extension that fails, answers too much or too late is asked again only then: until, the
/// center shows the plain notification with a note.
///
/// ```swift
/// center.contentExtensions.register(appID: "com.example.chat", categories: ["invite"], InviteView())
/// ```
public final class ContentExtensions: Sendable {
    /// A notification's view as the center shows it.
    enum View: Sendable, Hashable {
        /// The extension's HTML, and whether its frame may use the network.
        case html(String, allowsNetwork: Bool)
        /// Why there is no view: the note shown instead.
        case failed(String)
    }

    private struct Registered: Sendable {
        var categories: Set<String>
        var allowsNetwork: Bool
        var contentExtension: any ContentExtension
    }

    private struct State: Sendable {
        var registered: [String: Registered] = [:]
        var views: [String: View] = [:]
        var order: [String] = []
    }

    /// How many views are kept at most (the oldest go first).
    static let cachedViews = 500

    private let state = Mutex(State())
    private let store: any NotificationStore
    private let clock: any NotificationClock
    private let timeout: TimeInterval
    private let maximumSize: Int

    /// Creates the registry.
    /// - Parameters:
    ///   - store: Where apps declare their extensions.
    ///   - clock: The engine's clock, on which `timeout` runs.
    ///   - timeout: How long an extension may take to answer.
    ///   - maximumSize: The largest view taken, in bytes of UTF-8.
    init(store: any NotificationStore, clock: any NotificationClock, timeout: TimeInterval, maximumSize: Int) {
        self.store = store
        self.clock = clock
        self.timeout = timeout
        self.maximumSize = maximumSize
    }

    /// Creates the registry of a center that is not made yet (the daemon registers apps' in-process extensions in it
    /// before and while the center serves).
    /// - Parameters:
    ///   - scheduler: The engine the center will show.
    ///   - configuration: The center's settings (time and size limits).
    public convenience init(scheduler: NotificationScheduler, configuration: WebCenterConfiguration) {
        self.init(
            store: scheduler.store, clock: scheduler.clock, timeout: configuration.contentExtensionTimeout,
            maximumSize: configuration.contentExtensionMaximumSize)
    }

    /// Registers an extension that runs in this process for an app's categories, replacing the app's previous one.
    ///
    /// - Parameters:
    ///   - appID: The app whose notifications it draws.
    ///   - categories: The categories it draws (`categoryIdentifier`).
    ///   - allowsNetwork: Whether its view may load from and connect to `https:` addresses.
    ///   - contentExtension: The extension.
    public func register(
        appID: String, categories: [String], allowsNetwork: Bool = false, _ contentExtension: any ContentExtension
    ) {
        state.withLock {
            $0.registered[appID] = Registered(
                categories: Set(categories), allowsNetwork: allowsNetwork, contentExtension: contentExtension)
            $0.views = $0.views.filter { !$0.key.hasPrefix(appID + "\u{0}") }
            $0.order.removeAll { $0.hasPrefix(appID + "\u{0}") }
        }
    }

    /// Unregisters the app's in-process extension; its declared executable, if any, draws from now on.
    public func unregister(appID: String) {
        state.withLock {
            $0.registered[appID] = nil
            $0.views = $0.views.filter { !$0.key.hasPrefix(appID + "\u{0}") }
            $0.order.removeAll { $0.hasPrefix(appID + "\u{0}") }
        }
    }

    /// Unregisters the app's in-process extension only if it is still `contentExtension` (a newer process of the app
    /// may have registered its own meanwhile).
    public func unregister(appID: String, ifStill contentExtension: any ContentExtension & AnyObject) {
        guard let registered = state.withLock({ $0.registered[appID] }) else { return }
        if (registered.contentExtension as AnyObject) === contentExtension { unregister(appID: appID) }
    }

    /// The extension that draws a notification, if its app has one for its category, and whether it may use the
    /// network.
    func contentExtension(for notification: DeliveredNotification) async -> (any ContentExtension, Bool)? {
        let category = notification.request.content.categoryIdentifier
        guard !category.isEmpty else { return nil }
        if let registered = state.withLock({ $0.registered[notification.appID] }),
            registered.categories.contains(category)
        {
            return (registered.contentExtension, registered.allowsNetwork)
        }
        guard let declaration = try? await store.contentExtension(appID: notification.appID),
            declaration.categories.contains(category), let command = declaration.command, !command.isEmpty
        else { return nil }
        return (
            ProcessContentExtension(appID: notification.appID, command: command, maximumSize: maximumSize),
            declaration.allowsNetwork
        )
    }

    /// The view of a notification: the one drawn before, or the extension's answer now (within the time and size
    /// limits); `nil` when no extension draws it.
    func view(of notification: DeliveredNotification) async -> View? {
        let key = Self.key(notification)
        if let cached = state.withLock({ $0.views[key] }) { return cached }
        guard let (contentExtension, allowsNetwork) = await contentExtension(for: notification) else { return nil }
        let view: View
        do {
            let html = try await limited { try await contentExtension.view(of: notification) }
            guard html.utf8.count <= maximumSize else {
                throw ContentExtensionFailure("answered more than \(maximumSize) bytes")
            }
            view = .html(html, allowsNetwork: allowsNetwork)
        } catch let failure as ContentExtensionFailure {
            view = .failed(failure.message)
        } catch {
            view = .failed("failed: \(error)")
        }
        state.withLock {
            if $0.views.updateValue(view, forKey: key) == nil { $0.order.append(key) }
            while $0.order.count > Self.cachedViews { $0.views[$0.order.removeFirst()] = nil }
        }
        return view
    }

    /// Forgets the view drawn for a notification: the next page asks the extension again.
    func forget(_ notification: DeliveredNotification) {
        let key = Self.key(notification)
        state.withLock {
            $0.views[key] = nil
            $0.order.removeAll { $0 == key }
        }
    }

    /// Hands an action to the extension, within the time limit.
    /// - Throws: What the extension throws, or ``ContentExtensionFailure`` when it did not answer in time.
    func answer(_ response: ResponseSpec, by contentExtension: any ContentExtension) async throws
        -> ContentExtensionResponseOption
    {
        try await limited { try await contentExtension.answer(response) }
    }

    /// Runs `body` until it answers or ``timeout`` passes on the engine's clock (then it is cancelled).
    private func limited<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let clock = clock
        let timeout = timeout
        let deadline = clock.now.addingTimeInterval(timeout)
        let result: Result<T, any Error> = await FirstAnswer.race(
            {
                do { return .success(try await body()) } catch { return .failure(error) }
            },
            orElse: {
                try? await clock.sleep(until: deadline)
                return .failure(ContentExtensionFailure("did not answer within \(Int(timeout)) s"))
            })
        return try result.get()
    }

    private static func key(_ notification: DeliveredNotification) -> String {
        notification.appID + "\u{0}" + ReadMarks.mark(notification)
    }
}
