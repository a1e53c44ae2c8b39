import Foundation
import NotificationDelivery
import NotificationModel
import OpenUserNotifications
import Testing

@Suite("Communication content in the terminal")
struct CommunicationContentTests {
    @Test("the terminal banner shows the sender (and group) in place of the title")
    func terminalBanner() throws {
        let content = UNMutableNotificationContent()
        content.title = "New message"
        content.body = "See you at 8"
        let context = UNNotificationAttributedMessageContext(
            communication: { CommunicationSpec(senderName: "Ana Lima", groupName: "Climbing crew") },
            attributedContent: NSAttributedString(string: "See you at 8"))
        let updated = try content.updating(from: context)
        let request = try UNNotificationRequest(identifier: "m1", content: updated, trigger: nil).spec()
        let delivered = DeliveredNotification(
            appID: "com.example.messenger", request: request, date: Date(timeIntervalSince1970: 0),
            dueDate: Date(timeIntervalSince1970: 0), presentation: [.banner, .list])
        let banner = TerminalPresenter.banner(
            for: delivered, options: [.banner, .list], category: nil, timeZone: TimeZone(identifier: "UTC")!)
        #expect(banner.contains("│ Ana Lima — Climbing crew\n│ See you at 8\n"))
        #expect(!banner.contains("New message"))
    }
}
