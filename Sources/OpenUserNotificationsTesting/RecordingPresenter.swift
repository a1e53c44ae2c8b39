import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import Synchronization

/// A presenter that remembers what it showed, for assertions, and can pass everything on to a real presenter
/// (the desktop's, in end-to-end tests).
public final class RecordingPresenter: NotificationPresenter {
    /// One notification shown.
    public struct Presentation: Sendable, Hashable {
        public var appID: String
        public var identifier: String
        public var title: String
        public var body: String
        public var date: Date
        public var dueDate: Date
        /// The options it was shown with (raw values of `UNNotificationPresentationOptions`).
        public var options: UNNotificationPresentationOptions
        /// The titles of its category's actions, in order.
        public var actionTitles: [String]
    }

    private struct State {
        var presentations: [Presentation] = []
        var withdrawn: [String] = []
        var badges: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let next: (any NotificationPresenter)?

    public let name = "recording"

    /// Creates a presenter that records, and then hands each call to `next` when given.
    public init(forwardingTo next: (any NotificationPresenter)? = nil) {
        self.next = next
    }

    /// Everything shown so far, oldest first.
    public var presentations: [Presentation] { state.withLock { $0.presentations } }

    /// Identifiers taken off screen so far.
    public var withdrawn: [String] { state.withLock { $0.withdrawn } }

    /// The last badge shown per app.
    public var badges: [String: Int] { state.withLock { $0.badges } }

    /// Forgets what was recorded.
    public func reset() { state.withLock { $0 = State() } }

    public func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        let content = notification.request.content
        let presentation = Presentation(
            appID: notification.appID, identifier: notification.identifier, title: content.title, body: content.body,
            date: notification.date, dueDate: notification.dueDate,
            options: UNNotificationPresentationOptions(rawValue: options.rawValue),
            actionTitles: category?.actions.map(\.title) ?? [])
        state.withLock { $0.presentations.append(presentation) }
        await next?.present(notification, options: options, category: category)
    }

    public func withdraw(appID: String, identifiers: [String]) async {
        state.withLock { $0.withdrawn += identifiers }
        await next?.withdraw(appID: appID, identifiers: identifiers)
    }

    public func badgeDidChange(appID: String, count: Int) async {
        state.withLock { $0.badges[appID] = count }
        await next?.badgeDidChange(appID: appID, count: count)
    }
}
