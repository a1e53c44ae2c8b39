import Foundation
import NotificationModel
import Testing

@testable import NotificationWebCenter

/// The Delivered page's order of notifications delivered at the same instant: as the stores list them.
@Suite("Web center: delivered order")
struct DeliveredOrderTests {
    @Test("equal dates: the fire recorded last first, as the stores list them, whatever the identifiers")
    func equalDates() {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        // "a" replaced by a later fire at the same instant as "b": its history entry is the newer one.
        let delivered = [("a", Int64(3)), ("b", Int64(2)), ("c", Int64(1))].map { identifier, history in
            DeliveredNotification(
                appID: "com.example.app",
                request: RequestSpec(identifier: identifier, content: NotificationPayload(), trigger: nil),
                date: date, dueDate: date, presentation: [], historyID: history)
        }
        let page = DeliveredPage.ordered([
            DeliveredPage.AppGroup(appID: "com.example.app", notifications: delivered.shuffled(), categories: [])
        ])
        #expect(page.first?.notifications.map(\.identifier) == ["a", "b", "c"])
    }
}
