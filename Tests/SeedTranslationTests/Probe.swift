#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
import Foundation

@MainActor final class ProbeController {
    var n = 0
    let center: UNUserNotificationCenter
    init(center: UNUserNotificationCenter) { self.center = center }
    func go(completion: @escaping @MainActor (UNNotificationRequest?) -> ()) {
        center.getPendingNotificationRequests { requests in
            DispatchQueue.main.async {
                self.n += 1
                completion(requests.first)
            }
        }
    }
}
