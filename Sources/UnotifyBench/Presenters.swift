import Foundation
import NotificationEngine
import NotificationModel
import Synchronization

/// A presenter that notes the wall-clock instant `present` is called, next to the instant the request was due.
final class LatenessPresenter: NotificationPresenter {
    struct Presented: Sendable {
        var identifier: String
        var due: Date
        var presentedAt: Date

        var lateness: TimeInterval { presentedAt.timeIntervalSince(due) }
    }

    let name = "bench"
    private let presented = Mutex<[Presented]>([])

    func present(_ notification: DeliveredNotification, options: PresentationSet, category: CategorySpec?) async {
        let now = Date()
        presented.withLock {
            $0.append(Presented(identifier: notification.identifier, due: notification.dueDate, presentedAt: now))
        }
    }

    func withdraw(appID: String, identifiers: [String]) async {}

    func badgeDidChange(appID: String, count: Int) async {}

    var all: [Presented] { presented.withLock { $0 } }
    var count: Int { presented.withLock { $0.count } }
}

extension NotificationScheduler {
    /// An engine as the bench runs it: the real clock, no pending cap.
    static func bench(store: any NotificationStore, presenter: any NotificationPresenter = LatenessPresenter())
        -> NotificationScheduler
    {
        NotificationScheduler(
            store: store, clock: SystemNotificationClock(), presenter: presenter,
            configuration: EngineConfiguration(pendingCap: nil))
    }

    func authorizeForBench(_ appID: String) async throws {
        try await setAuthorization(appID: appID, status: .authorized, options: [.alert, .sound, .badge])
    }
}
