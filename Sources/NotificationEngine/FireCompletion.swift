import Foundation
import NotificationModel

/// A fire to record, as ``NotificationStore/completeFires(_:)`` takes it: the arguments of
/// ``NotificationStore/completeFire(_:nextFireDate:delivered:history:badge:)``.
///
/// ```swift
/// let fire = FireCompletion(
///     request: claimed, nextFireDate: nil, delivered: notification, history: entry, badge: nil)
/// let historyIDs = try await store.completeFires([fire])
/// ```
public struct FireCompletion: Sendable {
    /// The claimed request that fired.
    public var request: PendingRequest
    /// Its next fire date; `nil` when it does not fire again.
    public var nextFireDate: Date?
    /// The notification to list among the delivered ones, when it was shown.
    public var delivered: DeliveredNotification?
    /// The history entry of the fire.
    public var history: HistoryEntry
    /// The app's badge after the fire, when the fire set it.
    public var badge: Int?

    /// Creates a fire to record.
    ///
    /// - Parameters:
    ///   - request: The claimed request that fired.
    ///   - nextFireDate: Its next fire date, or `nil`.
    ///   - delivered: The notification to list, when shown.
    ///   - history: The history entry.
    ///   - badge: The badge the fire set, if any.
    public init(
        request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?
    ) {
        self.request = request
        self.nextFireDate = nextFireDate
        self.delivered = delivered
        self.history = history
        self.badge = badge
    }
}
