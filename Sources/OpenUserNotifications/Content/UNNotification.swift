import Foundation
import NotificationModel

/// A delivered notification: the request that caused it and the date it was delivered.
open class UNNotification: NSObject, NSCopying, @unchecked Sendable {
    /// The date shown on the notification.
    public let date: Date
    /// The request that was delivered.
    public let request: UNNotificationRequest

    /// Creates a notification: for tests (public through `OpenUserNotificationsTesting`).
    package init(date: Date, request: UNNotificationRequest) {
        self.date = date
        self.request = request
    }

    package convenience init(delivered: DeliveredNotification) {
        self.init(date: delivered.date, request: UNNotificationRequest(spec: delivered.request))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String { "<UNNotification date: \(date), request: \(request)>" }
}
