@_exported import Foundation
import Logging
import NotificationEngine
import NotificationModel

/// The app's way into the notification system: ask for permission, schedule requests, list and remove pending
/// and delivered notifications, register categories and set the badge.
///
/// ```swift
/// let center = UNUserNotificationCenter.current()
/// let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
/// let content = UNMutableNotificationContent()
/// content.title = "Tea is ready"
/// let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 180, repeats: false)
/// try await center.add(UNNotificationRequest(identifier: "tea", content: content, trigger: trigger))
/// ```
///
/// Operations run one at a time in the order they were called, whichever form (completion handler or `async`)
/// calls them.
///
/// > Note: On Linux, ``current()`` runs the scheduling engine inside the app's process (embedded mode), with
/// > its store in SQLite under the user's data directory; see ``OpenUserNotificationsConfiguration``.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {  // `_delegate` guarded by `lock`
    /// The bundle identifier of the app this center acts for.
    package let bundleIdentifier: String
    package let backend: any NotificationBackend
    package let configuration: OpenUserNotificationsConfiguration
    /// The app's name and icon on the desktop, given to each request's content (read once).
    private let appAppearance: AppAppearance?
    private let queue = SerialQueue()
    private let lock = NSLock()
    private weak var _delegate: (any UNUserNotificationCenterDelegate)?
    private let logger = Logger(label: "OpenUserNotifications.center")
    private var bridge: CenterForegroundBridge!  // set once in init
    private var attachment: Task<Void, Never>?  // guarded by `lock`

    /// Creates a center for one app over a backend; ``current()`` is the shared one.
    package init(bundleIdentifier: String, backend: any NotificationBackend, configuration: OpenUserNotificationsConfiguration) {
        self.bundleIdentifier = bundleIdentifier
        self.backend = backend
        self.configuration = configuration
        appAppearance = configuration.resolvedAppAppearance
        super.init()
        bridge = CenterForegroundBridge(center: self)
    }

    /// The app's shared center.
    public class func current() -> UNUserNotificationCenter {
        SharedSystem.shared.center
    }

    /// Receives notifications that arrive while the app runs, and the person's answers. Set it before the app
    /// finishes launching; answers given while the app was not running are handed to it when it is set.
    public weak var delegate: (any UNUserNotificationCenterDelegate)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _delegate
        }
        set {
            lock.lock()
            _delegate = newValue
            lock.unlock()
            if newValue != nil { attachAsForeground() } else { detachFromForeground() }
        }
    }

    /// Whether the device supports notification content extensions: never on Linux.
    public var supportsContentExtensions: Bool { false }

    /// Registers the running app with the engine, which then asks it before presenting and hands it responses.
    ///
    /// Not on the serial queue: handing over queued responses calls the delegate, which may call the center.
    package func attachAsForeground() {
        let backend = backend, bridge: CenterForegroundBridge = bridge, app = bundleIdentifier
        chainAttachment { await backend.attach(bridge, appID: app) }
    }

    /// Unregisters the app: it counts as not running, and the presenter shows its notifications.
    package func detachFromForeground() {
        let backend = backend, app = bundleIdentifier
        chainAttachment { await backend.detach(appID: app) }
    }

    private func chainAttachment(_ operation: @escaping @Sendable () async -> Void) {
        lock.lock()
        defer { lock.unlock() }
        let previous = attachment
        attachment = Task {
            await previous?.value
            await operation()
        }
    }

    /// Waits until every operation called so far has run, attaching and detaching included.
    package func settle() async {
        let pending = lock.withLock { attachment }
        await pending?.value
        _ = try? await queue.perform { () }
    }

    // MARK: - Authorization and settings

    /// Asks for permission to notify.
    ///
    /// - Parameters:
    ///   - options: What to ask for.
    ///   - completionHandler: Called with whether permission was granted, and an error.
    ///
    /// > Note: On Linux no prompt appears: the configured ``AuthorizationPolicy`` answers (by default it grants
    /// > what is asked), and `unotify authorize` changes the answer later, as a person would in Settings.
    public func requestAuthorization(
        options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        Task {
            do { completionHandler(try await requestAuthorization(options: options), nil) } catch { completionHandler(false, error) }
        }
    }

    /// Asks for permission to notify.
    /// - Returns: Whether permission was granted.
    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        let options = AuthorizationSet(rawValue: options.rawValue)
        return try await call { try await $0.requestAuthorization(appID: $1, options: options) }
    }

    /// Reads the app's notification settings.
    public func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        Task { completionHandler(await notificationSettings()) }
    }

    /// Reads the app's notification settings.
    public func notificationSettings() async -> UNNotificationSettings {
        let state = (try? await call { try await $0.appState(appID: $1) }) ?? AppState(appID: bundleIdentifier)
        return UNNotificationSettings(state: state)
    }

    // MARK: - Categories

    /// Registers the app's categories, replacing all that were registered before.
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        let specs = categories.map(\.spec).sorted { $0.identifier < $1.identifier }
        run("setNotificationCategories") { try await $0.setCategories(specs, appID: $1) }
    }

    /// Reads the app's registered categories.
    public func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        Task { completionHandler(await notificationCategories()) }
    }

    /// Reads the app's registered categories.
    public func notificationCategories() async -> Set<UNNotificationCategory> {
        let specs = (try? await call { try await $0.categories(appID: $1) }) ?? []
        return Set(specs.map(UNNotificationCategory.make))
    }

    // MARK: - Scheduling

    /// Schedules a request, replacing a pending request with the same identifier.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - completionHandler: Called with `nil` once the request is stored, or with the error.
    public func add(
        _ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        let spec: RequestSpec
        do { spec = try self.spec(of: request) } catch {
            queue.enqueue { completionHandler?(error) }
            return
        }
        let backend = backend, app = bundleIdentifier, configuration = configuration
        queue.enqueue {
            do {
                // Attachments are checked again and moved into the data store here, in the app's process.
                try await UNNotificationAttachment.add(spec, appID: app, configuration: configuration) {
                    try await backend.add($0, appID: app)
                }
                completionHandler?(nil)
            } catch {
                completionHandler?(Self.publicError(error))
            }
        }
    }

    /// Schedules a request, replacing a pending request with the same identifier.
    ///
    /// - Throws: ``UNError`` (`notificationsNotAllowed`, `notificationInvalidNoDate`, the attachment codes) or
    ///   ``NotificationRequestError`` (a trigger Apple would trap on, a `userInfo` that is not a property list).
    public func add(_ request: UNNotificationRequest) async throws {
        let spec = try self.spec(of: request)
        let configuration = configuration
        try await call { backend, app in
            // Attachments are checked again and moved into the data store here, in the app's process.
            try await UNNotificationAttachment.add(spec, appID: app, configuration: configuration) {
                try await backend.add($0, appID: app)
            }
        }
    }

    /// The engine's snapshot of `request`, with the app's name and icon on the desktop.
    func spec(of request: UNNotificationRequest) throws -> RequestSpec {
        var spec = try request.spec()
        spec.content.appAppearance = spec.content.appAppearance ?? appAppearance
        return spec
    }

    /// Reads the requests waiting for their trigger.
    public func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void) {
        Task { completionHandler(await pendingNotificationRequests()) }
    }

    /// Reads the requests waiting for their trigger.
    public func pendingNotificationRequests() async -> [UNNotificationRequest] {
        let pending = (try? await call { try await $0.pendingRequests(appID: $1) }) ?? []
        return pending.map { UNNotificationRequest(spec: $0.spec, plannedFireDate: $0.nextFireDate) }
    }

    /// Removes pending requests; repeating ones stop firing altogether.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        run("removePendingNotificationRequests") { try await $0.removePending(appID: $1, identifiers: identifiers) }
    }

    /// Removes all of the app's pending requests.
    public func removeAllPendingNotificationRequests() {
        run("removeAllPendingNotificationRequests") { try await $0.removePending(appID: $1, identifiers: nil) }
    }

    // MARK: - Delivered notifications

    /// Reads the app's notifications still shown in the notification list.
    public func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
        Task { completionHandler(await deliveredNotifications()) }
    }

    /// Reads the app's notifications still shown in the notification list.
    public func deliveredNotifications() async -> [UNNotification] {
        let delivered = (try? await call { try await $0.deliveredNotifications(appID: $1) }) ?? []
        return delivered.map(UNNotification.init(delivered:))
    }

    /// Removes delivered notifications from the list and the screen.
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        run("removeDeliveredNotifications") { try await $0.removeDelivered(appID: $1, identifiers: identifiers) }
    }

    /// Removes all of the app's delivered notifications.
    public func removeAllDeliveredNotifications() {
        run("removeAllDeliveredNotifications") { try await $0.removeDelivered(appID: $1, identifiers: nil) }
    }

    // MARK: - Badge

    /// Sets the app's badge count; 0 hides the badge.
    public func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        Task {
            do {
                try await setBadgeCount(newBadgeCount)
                completionHandler?(nil)
            } catch {
                completionHandler?(error)
            }
        }
    }

    /// Sets the app's badge count; 0 hides the badge.
    /// - Throws: ``UNError`` with `badgeInputInvalid` for a negative count.
    public func setBadgeCount(_ newBadgeCount: Int) async throws {
        try await call { try await $0.setBadge(appID: $1, count: newBadgeCount) }
    }

    // MARK: - Additions of this library

    /// The app's delivery history, newest first: when each notification was due, when it was delivered, how it
    /// was presented and what became of it. An addition of this library.
    public func deliveryHistory(limit: Int = 100) async throws -> [NotificationHistoryEntry] {
        try await call { try await $0.history(appID: $1, limit: limit) }
    }

    /// Registers the command that starts this app to hand it a person's answer while it is not running — the
    /// analogue of iOS launching an app in the background. `nil` removes it. An addition of this library.
    ///
    /// The command runs with `OPENUN_LAUNCH_REASON=response` and `OPENUN_BUNDLE_ID` set; the app then sets its
    /// delegate, which receives the waiting responses.
    ///
    /// ```swift
    /// try await center.setLaunchCommand(["/usr/local/bin/nagme", "--background"])
    /// ```
    /// - Throws: ``NotificationRequestError`` when the command does not start with an absolute path.
    public func setLaunchCommand(_ command: [String]?) async throws {
        try await call { try await $0.setLaunchCommand(command, appID: $1) }
    }

    // MARK: - Plumbing

    func call<T: Sendable>(_ body: @escaping @Sendable (any NotificationBackend, String) async throws -> T) async throws -> T {
        let backend = backend, app = bundleIdentifier
        do {
            return try await queue.perform { try await body(backend, app) }
        } catch {
            throw Self.publicError(error)
        }
    }

    /// Runs a fire-and-forget operation in order, logging a failure (Apple's forms have no completion).
    private func run(_ name: String, _ body: @escaping @Sendable (any NotificationBackend, String) async throws -> Void) {
        let backend = backend, app = bundleIdentifier, logger = logger
        queue.enqueue {
            do { try await body(backend, app) } catch {
                logger.error("\(name) failed: \(Self.publicError(error))", metadata: ["app": "\(app)"])
            }
        }
    }

    static func publicError(_ error: any Error) -> any Error {
        (error as? EngineError)?.publicError ?? error
    }

    /// The options used when the delegate gives no answer.
    var presentationWithoutAnswer: PresentationSet {
        PresentationSet(rawValue: configuration.foregroundPresentationWithoutDelegate.rawValue)
    }
}

/// One line of the delivery history. An addition of this library.
public typealias NotificationHistoryEntry = NotificationModel.HistoryEntry

/// Forwards the engine's questions to the app's delegate.
final class CenterForegroundBridge: ForegroundApp, @unchecked Sendable {  // `center` is set once, at creation
    private weak var center: UNUserNotificationCenter?

    init(center: UNUserNotificationCenter) {
        self.center = center
    }

    func willPresent(_ notification: DeliveredNotification) async -> PresentationSet? {
        guard let center else { return nil }
        guard let delegate = center.delegate else { return center.presentationWithoutAnswer }
        let probe = DelegateProbe()
        let options = await DelegateProbe.$current.withValue(probe) {
            await delegate.userNotificationCenter(center, willPresent: UNNotification(delivered: notification))
        }
        return probe.isUnimplemented ? center.presentationWithoutAnswer : PresentationSet(rawValue: options.rawValue)
    }

    func didReceive(_ response: ResponseSpec) async -> Bool {
        guard let center, let delegate = center.delegate else { return false }
        await delegate.userNotificationCenter(center, didReceive: UNNotificationResponse.make(response))
        return true
    }
}

extension UNNotificationSettings {
    /// Settings as the app's stored authorization gives them.
    package convenience init(state: AppState) {
        let status = UNAuthorizationStatus(rawValue: state.authorization.rawValue) ?? .notDetermined
        let allowed = state.authorization.allowsDelivery
        func setting(_ option: AuthorizationSet) -> UNNotificationSetting {
            status == .notDetermined ? .notSupported : allowed && state.grantedOptions.contains(option) ? .enabled : .disabled
        }
        let alerts = state.authorization == .provisional ? UNNotificationSetting.disabled : setting(.alert)
        self.init(
            authorizationStatus: status, soundSetting: setting(.sound), badgeSetting: setting(.badge), alertSetting: alerts,
            notificationCenterSetting: status == .notDetermined ? .notSupported : allowed ? .enabled : .disabled,
            alertStyle: alerts == .enabled ? .banner : .none, criticalAlertSetting: setting(.criticalAlert),
            providesAppNotificationSettings: state.grantedOptions.contains(.providesAppNotificationSettings),
            timeSensitiveSetting: setting(.timeSensitive))
    }
}
