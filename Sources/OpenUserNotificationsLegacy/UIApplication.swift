import Foundation

/// The running app: schedules and cancels local notifications, registers for permission, sets the icon badge, and
/// hands notification events to its ``delegate``, the pre-iOS 10 way.
///
/// ```swift
/// let notification = UILocalNotification()
/// notification.fireDate = Date(timeIntervalSinceNow: 60)
/// notification.alertBody = "Your tea is ready"
/// UIApplication.shared.scheduleLocalNotification(notification)
/// ```
///
/// Scheduling calls return at once and take effect in the order they were made, as with
/// `UNUserNotificationCenter`. ``scheduledLocalNotifications`` is synchronous, as in UIKit: it shows this
/// application's own calls at once and is brought up to date from the engine after every call, every notification
/// delivered to the running app, ``launch(delegate:)``, ``enterForeground()`` and
/// ``fetchScheduledLocalNotifications()``.
///
/// > Note: On Linux, a layer over `UNUserNotificationCenter`; see docs/legacy-api.md for the mapping and every
/// > difference from UIKit. The system does not drive the app's life cycle: ``launch(delegate:)``,
/// > ``enterBackground()``, ``enterForeground()`` and ``terminate()`` (additions of this library) stand for it.
@MainActor
public final class UIApplication: UIResponder {
    /// One notification the engine holds for the app, as last known.
    private struct Entry {
        var identifier: String
        var notification: UILocalNotification
        var nextFireDate: Date?
    }

    /// How many dated notifications the system keeps: the soonest-firing 64 ("最多只能有64个,超过会被系统忽略").
    static let pendingCap = 64

    private static var sharedStorage: UIApplication?

    private let center: UNUserNotificationCenter
    private let clock: LegacyApplicationClock
    private lazy var bridge = ApplicationBridge(application: self)
    private var retainedDelegate: (any UIApplicationDelegate)?
    private var entries: [Entry] = []
    private var settings: UIUserNotificationSettings?
    private var badgeNumber = 0
    /// Counts this application's changes, so that an engine snapshot older than a change is not applied.
    private var changeCount = 0
    /// One-shots delivered to the running app that an engine snapshot may still list: the engine removes one only
    /// after the delegate has answered, and a refresh may read the engine in between.
    private var firedOneShots: Set<String> = []
    /// The engine work started so far, chained in order.
    private var work: Task<Void, Never>?
    private var workCount = 0
    /// Responses handed over while launching; `nil` otherwise.
    private var launchResponses: [UNNotificationResponse]?

    /// The app, over `UNUserNotificationCenter.current()` and the system clock.
    ///
    /// ```swift
    /// UIApplication.shared.cancelAllLocalNotifications()
    /// ```
    public static var shared: UIApplication {
        if let sharedStorage { return sharedStorage }
        let application = UIApplication(center: .current())
        sharedStorage = application
        return application
    }

    /// Makes `application` the one ``shared`` returns, so that code written against `UIApplication.shared` runs
    /// over a test's center. An addition of this library.
    ///
    /// ```swift
    /// UIApplication.setShared(UIApplication(center: center, clock: clock))
    /// ```
    public static func setShared(_ application: UIApplication) {
        sharedStorage = application
    }

    /// Creates an app over a center. An addition of this library: UIKit has one app, ``shared``.
    ///
    /// - Parameters:
    ///   - center: The center whose engine holds the notifications.
    ///   - clock: The time and zone the engine uses; ``LegacyApplicationClock/system`` for a real engine.
    public init(center: UNUserNotificationCenter, clock: LegacyApplicationClock = .system) {
        self.center = center
        self.clock = clock
        super.init()
        scheduleRefresh()
    }

    /// The app's delegate, which receives launch, life-cycle and notification events.
    ///
    /// > Note: On Linux, a weak reference; ``launch(delegate:)`` keeps the delegate alive, as `UIApplicationMain` does.
    public weak var delegate: (any UIApplicationDelegate)?

    /// Whether the app is in the foreground.
    public private(set) var applicationState = State.background

    // MARK: - Scheduling

    /// Schedules a copy of a notification for its ``UILocalNotification/fireDate`` (or its region).
    ///
    /// A missing or past fire date delivers it at once. Of the app's dated notifications the system keeps the 64
    /// that fire soonest (a repeating one counting once) and discards the rest, possibly this one.
    ///
    /// ```swift
    /// UIApplication.shared.scheduleLocalNotification(notification)
    /// ```
    /// - Parameter notification: The notification; later changes to it do not affect the scheduled copy.
    public func scheduleLocalNotification(_ notification: UILocalNotification) {
        let copy = notification.copy() as! UILocalNotification
        let identifier = "UILocalNotification-\(UUID().uuidString)"
        copy.requestIdentifier = identifier
        let plan = copy.plan(clock: clock)
        add(copy.request(identifier: identifier, trigger: plan.trigger))
        guard plan.trigger != nil else { return }
        entries.append(Entry(identifier: identifier, notification: copy, nextFireDate: plan.nextFireDate))
        sortAndApplyPendingCap()
        noteChange()
    }

    /// Delivers a copy of a notification at once, whatever its fire date.
    ///
    /// While the app is in the foreground it goes to `application(_:didReceive:)`; otherwise it is shown.
    ///
    /// ```swift
    /// UIApplication.shared.presentLocalNotificationNow(notification)
    /// ```
    public func presentLocalNotificationNow(_ notification: UILocalNotification) {
        let copy = notification.copy() as! UILocalNotification
        let identifier = "UILocalNotification-\(UUID().uuidString)"
        add(copy.request(identifier: identifier, trigger: nil))
    }

    /// The app's scheduled notifications, soonest first: one-shots until they fire, repeating ones until cancelled.
    ///
    /// Setting it replaces them all, as cancelling all and scheduling each does.
    ///
    /// ```swift
    /// for notification in UIApplication.shared.scheduledLocalNotifications ?? [] { print(notification) }
    /// ```
    ///
    /// > Note: On Linux, the engine is asynchronous: this is the app's view, updated at once by its own calls and
    /// > from the engine after them. A change the app has not seen yet (a one-shot that fired while the app was in
    /// > the background, another process of the app) shows after ``enterForeground()``, the next call, or
    /// > ``fetchScheduledLocalNotifications()``, which reads the engine.
    public var scheduledLocalNotifications: [UILocalNotification]? {
        get { entries.map { $0.notification.copy() as! UILocalNotification } }
        set {
            cancelAllLocalNotifications()
            for notification in newValue ?? [] { scheduleLocalNotification(notification) }
        }
    }

    /// Cancels a scheduled notification and takes it off screen if it was delivered.
    ///
    /// A notification from ``scheduledLocalNotifications`` or a delegate callback cancels that copy; any other
    /// cancels every scheduled copy equal to it (same values).
    ///
    /// ```swift
    /// if let first = UIApplication.shared.scheduledLocalNotifications?.first {
    ///     UIApplication.shared.cancelLocalNotification(first)
    /// }
    /// ```
    public func cancelLocalNotification(_ notification: UILocalNotification) {
        let identifiers =
            notification.requestIdentifier.map { [$0] }
            ?? entries.filter { $0.notification.isEqual(notification) }.map(\.identifier)
        guard !identifiers.isEmpty else { return }
        center.removePendingNotificationRequests(withIdentifiers: identifiers)
        center.removeDeliveredNotifications(withIdentifiers: identifiers)
        entries.removeAll { identifiers.contains($0.identifier) }
        noteChange()
    }

    /// Cancels all of the app's scheduled notifications (those scheduled through the UN API too).
    public func cancelAllLocalNotifications() {
        center.removeAllPendingNotificationRequests()
        entries.removeAll()
        noteChange()
    }

    /// Reads the scheduled notifications from the engine, brings ``scheduledLocalNotifications`` up to date and
    /// returns them. An addition of this library, for code that can wait.
    ///
    /// ```swift
    /// let pending = await UIApplication.shared.fetchScheduledLocalNotifications()
    /// ```
    public func fetchScheduledLocalNotifications() async -> [UILocalNotification] {
        await settle()
        await refresh()
        return scheduledLocalNotifications ?? []
    }

    // MARK: - Permission and badge

    /// Asks for permission to badge, play sounds and show alerts, and registers the categories of actions.
    ///
    /// The delegate's `application(_:didRegister:)` receives the types granted.
    ///
    /// ```swift
    /// let settings = UIUserNotificationSettings(types: [.alert, .badge, .sound], categories: [category])
    /// UIApplication.shared.registerUserNotificationSettings(settings)
    /// ```
    /// > Note: On Linux, no prompt appears: the configured authorization policy answers (by default it grants what
    /// > is asked).
    public func registerUserNotificationSettings(_ notificationSettings: UIUserNotificationSettings) {
        let categories = Set((notificationSettings.categories ?? []).map(\.unCategory))
        center.setNotificationCategories(categories)
        var options: UNAuthorizationOptions = []
        if notificationSettings.types.contains(.alert) { options.insert(.alert) }
        if notificationSettings.types.contains(.badge) { options.insert(.badge) }
        if notificationSettings.types.contains(.sound) { options.insert(.sound) }
        let center = center
        enqueueWork { [self] in
            _ = try? await center.requestAuthorization(options: options)
            await refresh()
            let granted = settings ?? UIUserNotificationSettings(types: [], categories: nil)
            delegate?.application(self, didRegister: granted)
        }
    }

    /// The types the person allowed and the registered categories; `nil` before the app asked.
    public var currentUserNotificationSettings: UIUserNotificationSettings? { settings }

    /// The number on the app's icon; 0 hides it.
    public var applicationIconBadgeNumber: Int {
        get { badgeNumber }
        set {
            badgeNumber = newValue
            let center = center
            enqueueWork { try? await center.setBadgeCount(max(newValue, 0)) }
        }
    }

    // MARK: - Plumbing

    private func add(_ request: UNNotificationRequest) {
        center.add(request) { [weak self] error in
            guard error != nil else { return }
            Task { @MainActor in self?.noteChange() }  // the engine refused it: show the engine's list again
        }
    }

    /// Orders the list soonest first and keeps the soonest-firing 64 dated notifications, as the engine does after
    /// every add (undated ones, region notifications, are not counted).
    private func sortAndApplyPendingCap() {
        entries = entries.enumerated()
            .sorted { ($0.element.nextFireDate ?? .distantFuture, $0.offset) < ($1.element.nextFireDate ?? .distantFuture, $1.offset) }
            .map(\.element)
        let dated = entries.filter { $0.nextFireDate != nil }
        guard dated.count > Self.pendingCap else { return }
        let dropped = Set(dated.dropFirst(Self.pendingCap).map(\.identifier))
        entries.removeAll { dropped.contains($0.identifier) }
    }

    /// Records a change of this app's and reads the engine's list after it.
    private func noteChange() {
        changeCount += 1
        scheduleRefresh()
    }

    func scheduleRefresh() {
        enqueueWork { [self] in await refresh() }
    }

    /// Runs engine work after all work started before it.
    private func enqueueWork(_ body: @escaping @MainActor () async -> Void) {
        let previous = work
        workCount += 1
        work = Task { @MainActor in
            await previous?.value
            await body()
        }
    }

    /// Reads the engine's pending requests, settings and categories into this app's view. A snapshot that started
    /// before a later change of this app's is dropped: the refresh that change started follows.
    func refresh() async {
        let start = changeCount
        let center = center
        let requests = await center.pendingNotificationRequests()
        let unSettings = await center.notificationSettings()
        let categories = await center.notificationCategories()
        if start == changeCount {
            // A snapshot without a fired one-shot shows the engine has removed it: nothing left to hide.
            firedOneShots.formIntersection(requests.map(\.identifier))
            entries =
                requests
                .filter { $0.trigger != nil && !firedOneShots.contains($0.identifier) }
                .compactMap { request in
                    UILocalNotification.make(from: request).map {
                        Entry(identifier: request.identifier, notification: $0, nextFireDate: Self.nextFireDate(of: request))
                    }
                }
                .sorted { ($0.nextFireDate ?? .distantFuture, $0.identifier) < ($1.nextFireDate ?? .distantFuture, $1.identifier) }
        }
        if unSettings.authorizationStatus == .notDetermined {
            settings = nil
        } else {
            var types: UIUserNotificationType = []
            if unSettings.alertSetting == .enabled { types.insert(.alert) }
            if unSettings.badgeSetting == .enabled { types.insert(.badge) }
            if unSettings.soundSetting == .enabled { types.insert(.sound) }
            settings = UIUserNotificationSettings(
                types: types, categories: categories.isEmpty ? nil : Set(categories.map(UIUserNotificationCategory.make)))
        }
    }

    private static func nextFireDate(of request: UNNotificationRequest) -> Date? {
        (request.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate()
    }

    /// Waits until every call made so far has reached the engine and this app's view has been brought up to date.
    /// An addition of this library, for tests and for code that can wait.
    ///
    /// ```swift
    /// application.scheduleLocalNotification(notification)
    /// await application.settle()
    /// ```
    public func settle() async {
        var seen = -1
        while seen != workCount {
            seen = workCount
            await center.settle()
            await work?.value
        }
    }

    // MARK: - Life cycle (additions of this library)

    /// Launches the app as `UIApplicationMain` does: keeps `delegate`, hands it the notification whose tap launched
    /// the app under `launchOptions[.localNotification]`, and makes the app active. An addition of this library.
    ///
    /// Answers given while the app was not running are handed over here: the first tap as the launch option, any
    /// action to `application(_:handleActionWithIdentifier:for:withResponseInfo:completionHandler:)` after
    /// launching, further taps to `application(_:didReceive:)`.
    ///
    /// ```swift
    /// let delegate = AppDelegate()
    /// await UIApplication.shared.launch(delegate: delegate)
    /// ```
    /// - Returns: What `application(_:didFinishLaunchingWithOptions:)` returned.
    @discardableResult
    public func launch(delegate: any UIApplicationDelegate) async -> Bool {
        retainedDelegate = delegate
        self.delegate = delegate
        applicationState = .inactive
        launchResponses = []
        center.delegate = bridge
        await settle()
        await refresh()
        var responses = launchResponses ?? []
        launchResponses = nil
        var options: [LaunchOptionsKey: Any]?
        if let index = responses.firstIndex(where: { $0.actionIdentifier == UNNotificationDefaultActionIdentifier }),
            let notification = UILocalNotification.make(from: responses[index].notification.request)
        {
            options = [.localNotification: notification]
            responses.remove(at: index)
        }
        let result = delegate.application(self, didFinishLaunchingWithOptions: options)
        for response in responses { dispatch(response) }
        applicationState = .active
        delegate.applicationDidBecomeActive(self)
        return result
    }

    /// Sends the app to the background: notifications that fire from now on are shown (with their sound and badge)
    /// instead of going to `application(_:didReceive:)`; answers still reach the delegate, as iOS wakes a suspended
    /// app for them. An addition of this library.
    ///
    /// ```swift
    /// await application.enterBackground()
    /// ```
    public func enterBackground() async {
        applicationState = .background
        await settle()
        delegate?.applicationDidEnterBackground(self)
    }

    /// Brings the app back to the foreground: reads the engine's list, calls `applicationWillEnterForeground(_:)`,
    /// then `applicationDidBecomeActive(_:)`. An addition of this library.
    ///
    /// ```swift
    /// await application.enterForeground()
    /// ```
    public func enterForeground() async {
        applicationState = .inactive
        await settle()
        await refresh()
        delegate?.applicationWillEnterForeground(self)
        applicationState = .active
        delegate?.applicationDidBecomeActive(self)
    }

    /// Ends the app as the system does: calls `applicationWillTerminate(_:)` and lets the delegate go. Notifications
    /// are shown and answers wait for the next ``launch(delegate:)``. An addition of this library.
    ///
    /// ```swift
    /// await application.terminate()
    /// ```
    public func terminate() async {
        delegate?.applicationWillTerminate(self)
        center.delegate = nil
        await settle()
        applicationState = .background
        delegate = nil
        retainedDelegate = nil
    }

    // MARK: - Events from the engine

    /// A notification fired while the app runs: in the foreground it goes to the delegate and is not shown; in the
    /// background it is shown. A one-shot leaves ``scheduledLocalNotifications`` at once, before the delegate sees it.
    func notificationDidFire(_ notification: UNNotification) -> UNNotificationPresentationOptions {
        let request = notification.request
        if request.trigger?.repeats != true {
            firedOneShots.insert(request.identifier)
            entries.removeAll { $0.identifier == request.identifier }
        }
        scheduleRefresh()
        guard applicationState != .background else { return [.banner, .list, .sound, .badge] }
        guard let local = UILocalNotification.make(from: request) else { return [] }
        delegate?.application(self, didReceive: local)
        return []
    }

    /// A person's answer: kept for the launch options while launching, otherwise handed to the delegate.
    func receive(_ response: UNNotificationResponse) {
        if launchResponses != nil {
            launchResponses?.append(response)
        } else {
            dispatch(response)
        }
    }

    private func dispatch(_ response: UNNotificationResponse) {
        guard let local = UILocalNotification.make(from: response.notification.request) else { return }
        switch response.actionIdentifier {
        case UNNotificationDefaultActionIdentifier:
            delegate?.application(self, didReceive: local)
        case UNNotificationDismissActionIdentifier:
            return
        default:
            var info: [AnyHashable: Any] = [:]
            if let text = (response as? UNTextInputNotificationResponse)?.userText {
                info[UIUserNotificationActionResponseTypedTextKey] = text
            }
            delegate?.application(
                self, handleActionWithIdentifier: response.actionIdentifier, for: local, withResponseInfo: info,
                completionHandler: {})
        }
    }
}
