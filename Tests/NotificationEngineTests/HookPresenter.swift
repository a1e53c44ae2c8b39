import Foundation
import NotificationEngine
import NotificationModel
import Synchronization

/// A presenter that runs the test's hook inside `present`, once per notification, before it returns: what another
/// client does while a notification is on its way to the screen (an add of the same identifier, a crash).
final class HookPresenter: NotificationPresenter {
    let name = "hook"
    private let hook: Mutex<(@Sendable (DeliveredNotification) async -> Void)?>

    init() {
        hook = Mutex(nil)
    }

    /// Runs `body` in the next presentations (until set again; `nil` runs nothing).
    func onPresent(_ body: (@Sendable (DeliveredNotification) async -> Void)?) {
        hook.withLock { $0 = body }
    }

    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        let body = hook.withLock { $0 }
        await body?(notification)
    }

    func withdraw(appID: String, identifiers: [String]) async {}

    func badgeDidChange(appID: String, count: Int) async {}
}
