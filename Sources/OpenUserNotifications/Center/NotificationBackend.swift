import Foundation
import NotificationEngine
import NotificationModel

/// What a ``UNUserNotificationCenter`` talks to: the engine in this process (embedded mode) or, later, the
/// per-user daemon. Every call names the app, so one backend serves many apps.
package protocol NotificationBackend: Sendable {
    func add(_ spec: RequestSpec, appID: String) async throws
    func pendingRequests(appID: String) async throws -> [PendingRequest]
    func removePending(appID: String, identifiers: [String]?) async throws
    func deliveredNotifications(appID: String) async throws -> [DeliveredNotification]
    func removeDelivered(appID: String, identifiers: [String]?) async throws
    func setCategories(_ categories: [CategorySpec], appID: String) async throws
    func categories(appID: String) async throws -> [CategorySpec]
    func requestAuthorization(appID: String, options: AuthorizationSet) async throws -> Bool
    func appState(appID: String) async throws -> AppState
    func setBadge(appID: String, count: Int) async throws
    func history(appID: String?, limit: Int) async throws -> [HistoryEntry]
    func attach(_ app: any ForegroundApp, appID: String) async
    func detach(appID: String) async
}

extension NotificationScheduler: NotificationBackend {}
