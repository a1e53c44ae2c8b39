import Foundation
import NotificationModel

/// A delivered notification: the request that caused it and the date it was delivered.
open class UNNotification: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
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

    /// Notifications archive securely.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes a notification archived with ``encode(with:)``.
    public required init?(coder: NSCoder) {
        guard let date = coder.decodeDate(forKey: "date"),
            let request = coder.decodeObject(of: UNNotificationRequest.self, forKey: "request")
        else { return nil }
        self.date = date
        self.request = request
    }

    /// Archives the notification: its date and its request.
    open func encode(with coder: NSCoder) {
        coder.encode(date as NSDate, forKey: "date")
        coder.encode(request, forKey: "request")
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotification else { return false }
        return other.date == date && other.request.isEqual(request)
    }

    open override var hash: Int { request.hash }

    open override var description: String { "<UNNotification date: \(date), request: \(request)>" }
}
