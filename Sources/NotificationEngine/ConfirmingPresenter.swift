import Foundation
import NotificationModel

/// A presenter that hands notifications to something that can refuse them or fail to answer, such as APNs: it says
/// what became of each one, and the engine records the fire accordingly.
///
/// - ``PresentationOutcome/presented``: recorded as delivered, as with any presenter.
/// - ``PresentationOutcome/failed(_:)``: recorded as skipped with the reason, never presented again (a repeating
///   request keeps its schedule).
/// - ``PresentationOutcome/retryLater(_:)``: not recorded. The claim stays until its lease
///   (``EngineConfiguration/claimLease``) ends, then any engine on the store claims and presents the request again:
///   the engine's at-least-once rule, as when an engine dies before recording a fire.
///
/// ```swift
/// struct Courier: ConfirmingPresenter {
///     let name = "courier"
///     func deliver(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async
///         -> PresentationOutcome
///     {
///         await send(notification) ? .presented : .retryLater("the courier did not answer")
///     }
///     func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
///         _ = await deliver(notification, options: options, category: category)
///     }
///     func withdraw(appID: String, identifiers: [String]) async {}
///     func badgeDidChange(appID: String, count: Int) async {}
/// }
/// ```
public protocol ConfirmingPresenter: NotificationPresenter {
    /// Hands a notification over, and says what became of it. The engine calls this instead of
    /// ``NotificationPresenter/present(_:options:category:)``.
    ///
    /// - Parameters:
    ///   - notification: The notification.
    ///   - options: Banner, list, sound and badge, as decided by the app or by default.
    ///   - category: The notification's category, when the app registered one.
    /// - Returns: What became of it.
    func deliver(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async
        -> PresentationOutcome

    /// Tells the presenter the apps of a claimed batch of several apps whose notifications it is about to be handed
    /// (by ``deliver(_:options:category:)``, each at most once), so that what each delivery looks up can be read once
    /// for all of them. The default does nothing.
    ///
    /// - Parameter appIDs: The apps of the batch.
    func willDeliver(appIDs: Set<String>) async
}

extension ConfirmingPresenter {
    /// Does nothing: each delivery looks up what it needs.
    public func willDeliver(appIDs: Set<String>) async {}
}
