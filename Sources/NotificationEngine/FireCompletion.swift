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
    /// Whether the request was presented without ever being stored (a push shown on arrival, before the transaction
    /// that records it): it has no pending row and no claim of its own. `request.revision` then names the app's pending
    /// request with the same identifier that it replaces, as read before it was presented (0 when there was none):
    /// the recording deletes that row unless it was replaced or removed meanwhile, so a request added after the
    /// presentation is kept. Such a fire is always recorded: no claim is checked.
    public var presentedOnArrival: Bool

    /// Creates a fire to record.
    ///
    /// - Parameters:
    ///   - request: The claimed request that fired.
    ///   - nextFireDate: Its next fire date, or `nil`.
    ///   - delivered: The notification to list, when shown.
    ///   - history: The history entry.
    ///   - badge: The badge the fire set, if any.
    ///   - presentedOnArrival: Whether the request was presented without being stored (see
    ///     ``presentedOnArrival``); its `revision` is then the pending request it replaces, or 0.
    public init(
        request: PendingRequest, nextFireDate: Date?, delivered: DeliveredNotification?, history: HistoryEntry,
        badge: Int?, presentedOnArrival: Bool = false
    ) {
        self.request = request
        self.nextFireDate = nextFireDate
        self.delivered = delivered
        self.history = history
        self.badge = badge
        self.presentedOnArrival = presentedOnArrival
    }
}
