#if canImport(UserNotifications)
import UserNotifications
#else
import OpenUserNotifications
#endif
// Apple's UserNotifications re-exports Foundation; OpenUserNotifications does not (yet), so NSObject needs this
// line on Linux. It is harmless on Apple platforms.
import Foundation

// Not a seed translation. No seed listing uses a text-input action, so this completes seeds 001 and 004 (a
// category with custom actions, answered in `didReceive`) with the one kind of action they leave out, written
// the way those seeds would write it today: a `UNTextInputNotificationAction` next to a plain action, and the
// `async` forms of the delegate methods.

enum TextInputReply {}

extension TextInputReply {
    /// A messaging app: reply from the notification, or mark the message read.
    final class MessagesAppDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
        private let center: UNUserNotificationCenter
        private let log: @Sendable (String) -> Void

        init(center: UNUserNotificationCenter = .current(), log: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.center = center
            self.log = log
        }

        func application(didFinishLaunchingWithOptions launchOptions: [AnyHashable: Any]?) -> Bool {
            let reply = UNTextInputNotificationAction(
                identifier: "REPLY", title: "Reply", options: [], textInputButtonTitle: "Send",
                textInputPlaceholder: "Message")
            let markRead = UNNotificationAction(identifier: "MARK_READ", title: "Mark as Read", options: [])
            let message = UNNotificationCategory(
                identifier: "MESSAGE", actions: [reply, markRead], intentIdentifiers: [], options: [])
            center.setNotificationCategories([message])
            center.delegate = self
            return true
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification
        ) async -> UNNotificationPresentationOptions {
            [.banner, .list]
        }

        func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
            let sender = response.notification.request.content.userInfo["sender"] as? String ?? "?"
            switch response.actionIdentifier {
            case "REPLY":
                if let textResponse = response as? UNTextInputNotificationResponse {
                    log("Reply to \(sender): \(textResponse.userText)")
                }
            case "MARK_READ":
                log("Read message from \(sender)")
            default:
                log("Opened message from \(sender)")
            }
        }
    }
}

// MARK: - Tests

import OpenUserNotificationsTesting
import Testing

@Suite("A category with a text-input action, answered in didReceive", .timeLimit(.minutes(1)))
struct TextInputReplyTests {
    let app = "com.example.messages"
    let system: NotificationTestSystem
    let log = PrintLog()

    init() throws {
        system = try NotificationTestSystem()
    }

    /// Launches the app and delivers a message from Ada.
    private func launchAndReceive() async throws -> (UNUserNotificationCenter, TextInputReply.MessagesAppDelegate) {
        let center = try await system.center(for: app)
        let appDelegate = TextInputReply.MessagesAppDelegate(center: center, log: log.record)
        #expect(appDelegate.application(didFinishLaunchingWithOptions: nil))
        await system.settle(center)

        let content = UNMutableNotificationContent()
        content.title = "Ada"
        content.body = "Lunch at noon?"
        content.categoryIdentifier = "MESSAGE"
        content.userInfo = ["sender": "Ada"]
        try await center.add(UNNotificationRequest(identifier: "msg-1", content: content, trigger: nil))
        #expect(await system.advance(by: 0) == 1)
        return (center, appDelegate)
    }

    @Test("the category keeps the text-input action's button title and placeholder")
    func category() async throws {
        let (center, appDelegate) = try await launchAndReceive()
        let category = try #require(await center.notificationCategories().first)
        let reply = try #require(category.actions.first as? UNTextInputNotificationAction)
        #expect(reply.identifier == "REPLY")
        #expect(reply.textInputButtonTitle == "Send")
        #expect(reply.textInputPlaceholder == "Message")
        #expect(!(category.actions[1] is UNTextInputNotificationAction))
        #expect(system.presenter.presentations.map(\.actionTitles) == [["Reply", "Mark as Read"]])
        withExtendedLifetime(appDelegate) {}
    }

    @Test("the typed reply reaches didReceive as a UNTextInputNotificationResponse")
    func reply() async throws {
        let (center, appDelegate) = try await launchAndReceive()
        #expect(try await system.respond(to: "msg-1", app: app, actionIdentifier: "REPLY", text: "Yes, see you there"))
        #expect(log.lines == ["Reply to Ada: Yes, see you there"])
        #expect(await center.deliveredNotifications().isEmpty)
        let entry = try #require(try await system.history(app: app).first)
        #expect(entry.outcome == .action)
        withExtendedLifetime(appDelegate) {}
    }

    @Test("the plain action and a tap arrive as plain responses")
    func plainResponses() async throws {
        let (_, appDelegate) = try await launchAndReceive()
        #expect(try await system.respond(to: "msg-1", app: app, actionIdentifier: "MARK_READ"))
        #expect(log.lines == ["Read message from Ada"])
        withExtendedLifetime(appDelegate) {}
    }

    @Test("text cannot be sent with an action that has no text field")
    func textForPlainAction() async throws {
        let (center, appDelegate) = try await launchAndReceive()
        await #expect(throws: (any Error).self) {
            try await system.respond(to: "msg-1", app: app, actionIdentifier: "MARK_READ", text: "hello")
        }
        #expect(log.lines.isEmpty)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["msg-1"])
        withExtendedLifetime(appDelegate) {}
    }
}
