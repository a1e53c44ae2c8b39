import Foundation
import NotificationModel

/// What the API and the CLI talk to: the engine in this process (embedded mode) or the per-user daemon through
/// `NotificationClient`. Every call names the app, so one backend serves many apps.
public protocol NotificationBackend: Sendable {
    func add(_ spec: RequestSpec, appID: String) async throws
    /// Adds many requests of the app: all of them, or none when one is refused (``BatchAddError``).
    func add(contentsOf specs: [RequestSpec], appID: String) async throws -> BatchAddResult
    func pendingRequests(appID: String) async throws -> [PendingRequest]
    func removePending(appID: String, identifiers: [String]?) async throws
    func deliveredNotifications(appID: String) async throws -> [DeliveredNotification]
    func removeDelivered(appID: String, identifiers: [String]?) async throws
    func setCategories(_ categories: [CategorySpec], appID: String) async throws
    func categories(appID: String) async throws -> [CategorySpec]
    func requestAuthorization(appID: String, options: AuthorizationSet) async throws -> Bool
    func setAuthorization(appID: String, status: AuthorizationStatus, options: AuthorizationSet) async throws
    func appState(appID: String) async throws -> AppState
    func setBadge(appID: String, count: Int) async throws
    func history(appID: String?, limit: Int) async throws -> [HistoryEntry]
    @discardableResult
    func respond(appID: String, notificationIdentifier: String, actionIdentifier: String, userText: String?) async throws
        -> Bool
    /// Registers the app's running process; its `willPresent` and `didReceive` are then asked.
    func attach(_ app: any ForegroundApp, appID: String) async
    func detach(appID: String) async
    /// Registers (or removes) the command that starts the app to hand it a response while it is not running.
    func setLaunchCommand(_ command: [String]?, appID: String) async throws
    /// Registers the app for remote notifications, or returns its active registration (its device token).
    func registerForRemoteNotifications(appID: String, bundleDirectory: String?) async throws -> PushRegistration
    /// Unregisters the app: pushes to its token answer 410 `Unregistered` from now on.
    func unregisterForRemoteNotifications(appID: String) async throws -> PushRegistration?
    /// The app's registration for remote notifications, active or not, if it ever registered.
    func pushRegistration(appID: String) async throws -> PushRegistration?
    /// Registers the running app's receiver of background pushes; the one that waited is handed over.
    func attachRemoteReceiver(_ receiver: any RemoteNotificationReceiver, appID: String) async
    /// Unregisters the running app's receiver of background pushes.
    func detachRemoteReceiver(appID: String) async
    /// Registers the service extension that runs in the app's process.
    func attachServiceExtension(_ host: any ServiceExtensionHost, appID: String) async
    /// Unregisters the app's in-process service extension.
    func detachServiceExtension(appID: String) async
    /// Declares (or with `nil` removes) the executable that runs the app's service extension.
    func setServiceExtensionCommand(_ command: [String]?, appID: String) async throws
    /// Declares (or with `nil` removes) the app's content extension (its categories and executable).
    func setContentExtension(_ declaration: ContentExtensionDeclaration?, appID: String) async throws
    /// Registers the content extension that runs in the app's process for some categories (the daemon's web center
    /// asks it before the declared executable).
    func attachContentExtension(
        _ answering: @escaping ContentExtensionAnswering, categories: [String], allowsNetwork: Bool, appID: String
    ) async
    /// Unregisters the app's in-process content extension.
    func detachContentExtension(appID: String) async
}

extension NotificationScheduler: NotificationBackend {
    /// Nothing: in embedded mode there is no web center to draw into (the daemon serves it).
    public func attachContentExtension(
        _ answering: @escaping ContentExtensionAnswering, categories: [String], allowsNetwork: Bool, appID: String
    ) async {}

    /// Nothing, as ``attachContentExtension(_:categories:allowsNetwork:appID:)``.
    public func detachContentExtension(appID: String) async {}

    public func add(contentsOf specs: [RequestSpec], appID: String) async throws -> BatchAddResult {
        try await add(batch: OneAppBatch(appID: appID, specs: specs))
    }

    public func setLaunchCommand(_ command: [String]?, appID: String) async throws {
        guard command.map({ !$0.isEmpty && $0[0].hasPrefix("/") }) ?? true else {
            throw EngineError(.invalidArgument, "a launch command starts with an absolute executable path")
        }
        do { try await store.setLaunchCommand(command, appID: appID) } catch {
            throw EngineError(.storeFailure, "the notification store failed: \(error)")
        }
    }
}
