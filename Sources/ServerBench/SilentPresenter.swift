import NotificationEngine
import NotificationModel

/// The presenter of engines that only schedule (figure 1's API) or whose deliveries are not what is measured (the
/// push endpoint's loop, figure 4): it shows nothing.
struct SilentPresenter: NotificationPresenter {
    let name = "none"
    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {}
    func withdraw(appID: String, identifiers: [String]) async {}
    func badgeDidChange(appID: String, count: Int) async {}
}
