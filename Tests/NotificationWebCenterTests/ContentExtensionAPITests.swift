import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// The app's side of content extensions: the declaration through `UNUserNotificationCenter` (in-process and over the
/// daemon's socket), and what a `UNNotificationContentExtension` answers when its executable runs it.
@Suite("Web center: content extension API", .timeLimit(.minutes(5)))
struct ContentExtensionAPITests {
    final class InviteView: UNNotificationContentExtension {
        func didReceive(_ notification: UNNotification) async -> String {
            "<h1>\(notification.request.content.title)</h1>"
        }

        func didReceive(
            _ response: UNNotificationResponse,
            completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
        ) {
            let text = (response as? UNTextInputNotificationResponse)?.userText
            completion(
                response.actionIdentifier == "accept"
                    ? .dismissAndForwardAction : text == nil ? .dismiss : .doNotDismiss)
        }
    }

    /// Draws, and leaves actions to the protocol's default.
    final class ViewOnly: UNNotificationContentExtension {
        func didReceive(_ notification: UNNotification) async -> String { "<p>only a view</p>" }
    }

    static func delivered(_ title: String) -> DeliveredNotification {
        var content = NotificationPayload()
        content.title = title
        content.categoryIdentifier = "invite"
        return DeliveredNotification(
            appID: "com.example.chat", request: RequestSpec(identifier: "i1", content: content, trigger: nil),
            date: Date(timeIntervalSince1970: 1_767_603_600), dueDate: Date(timeIntervalSince1970: 1_767_603_600),
            presentation: [.list])
    }

    @Test("the executable's answer: the view's HTML, or the chosen option's name; the default forwards")
    func answers() async throws {
        let notification = Self.delivered("Dinner")
        let view = await ContentExtensionProcess.answer(
            .view(appID: "com.example.chat", notification: notification), with: InviteView())
        #expect(view == "<h1>Dinner</h1>")
        func response(_ action: String, text: String? = nil) -> ContentExtensionProcessMessage {
            .response(
                appID: "com.example.chat",
                response: ResponseSpec(
                    notification: notification, actionIdentifier: action, userText: text, date: Date()))
        }
        #expect(
            await ContentExtensionProcess.answer(response("accept"), with: InviteView()) == "dismissAndForwardAction")
        #expect(await ContentExtensionProcess.answer(response("later"), with: InviteView()) == "dismiss")
        #expect(
            await ContentExtensionProcess.answer(response("comment", text: "hi"), with: InviteView()) == "doNotDismiss")
        #expect(await ContentExtensionProcess.answer(response("accept"), with: ViewOnly()) == "dismissAndForwardAction")
        // Every answer is one the center reads back.
        #expect(UNNotificationContentExtensionResponseOption.doNotDismiss.rawValue == 0)
        #expect(UNNotificationContentExtensionResponseOption.dismissAndForwardAction.rawValue == 2)
    }

    @Test("the process message survives its line of JSON", arguments: ["view", "response"])
    func messageLine(kind: String) throws {
        let notification = Self.delivered("Line \"one\"\nline two")
        let message: ContentExtensionProcessMessage =
            kind == "view"
            ? .view(appID: "com.example.chat", notification: notification)
            : .response(
                appID: "com.example.chat",
                response: ResponseSpec(
                    notification: notification, actionIdentifier: "accept", userText: nil,
                    date: Date(timeIntervalSince1970: 1_767_603_601)))
        let line = try message.encodedLine()
        #expect(line.last == 0x0A)
        #expect(line.dropLast().firstIndex(of: 0x0A) == nil)
        #expect(ContentExtensionProcessMessage.decode(line: line.dropLast()) == message)
    }

    @Test(
        "an app declares its extension through its center, in-process and over the daemon's socket",
        arguments: NotificationTestSystem.Mode.allCases)
    func declares(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let center = try await system.center(for: "com.example.chat")
        try await center.setContentExtension(
            command: ["/opt/chat/bin/InviteView", "--quiet"], categories: ["invite"], allowsNetwork: true)
        #expect(
            try await system.scheduler.store.contentExtension(appID: "com.example.chat")
                == ContentExtensionDeclaration(
                    categories: ["invite"], command: ["/opt/chat/bin/InviteView", "--quiet"], allowsNetwork: true))
        await #expect(throws: (any Error).self) {
            try await center.setContentExtension(command: ["InviteView"], categories: ["invite"])
        }
        try await center.removeContentExtension()
        #expect(try await system.scheduler.store.contentExtension(appID: "com.example.chat") == nil)
    }
}
