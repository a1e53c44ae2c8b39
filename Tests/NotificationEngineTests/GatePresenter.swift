import Foundation
import NotificationEngine
import NotificationModel
import Synchronization

/// A presenter that blocks in `present` until the test opens its gate: a live engine that is slow to present (an APNs
/// send in backoff, a loaded machine). It counts the presentations that began.
final class GatePresenter: NotificationPresenter {
    private struct State {
        var started: [String] = []
        var open = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    let name = "gate"

    /// The identifiers of the notifications whose presentation began, in order.
    var started: [String] { state.withLock { $0.started } }

    /// Lets every blocked and later presentation finish.
    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                state.started.append(notification.identifier)
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if passes { continuation.resume() }
        }
    }

    func withdraw(appID: String, identifiers: [String]) async {}

    func badgeDidChange(appID: String, count: Int) async {}
}
