import Foundation
import NotificationClient
import NotificationDaemon
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

@testable import NotificationWebCenter

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

    @Test("an extension in the app's process draws and answers over the daemon's socket; nil, or the app closing its connection, unregisters it")
    func inProcessOverSocket() async throws {
        let folder = URL(fileURLWithPath: "/tmp/unotify-cx-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("d.sock").path
        let (daemon, clock) = try DaemonWebCenterTests.makeDaemon(socket: socket)
        let running = Task { try await daemon.run() }
        defer { running.cancel() }
        await daemon.waitUntilListening()
        let registry = try #require(daemon.contentExtensions)
        let app = "com.example.chat"
        try await daemon.scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert])
        var content = NotificationPayload()
        content.title = "Dinner"
        content.categoryIdentifier = "invite"
        try await daemon.scheduler.add(
            RequestSpec(identifier: "i1", content: content, trigger: .timeInterval(1, repeats: false)), appID: app)
        clock.advance(by: 1)
        await daemon.scheduler.deliverDue()
        let notification = try #require(try await daemon.scheduler.deliveredNotifications(appID: app).first)

        let backend = DaemonBackend(socketPath: socket)
        let center = UNUserNotificationCenter(
            bundleIdentifier: app, backend: backend, configuration: OpenUserNotificationsConfiguration())
        await center.setContentExtension(categories: ["invite"]) { InviteView() }
        #expect(await registry.view(of: notification) == .html("<h1>Dinner</h1>", allowsNetwork: false))
        let (drawing, _) = try #require(await registry.contentExtension(for: notification))
        let response = ResponseSpec(notification: notification, actionIdentifier: "accept", date: clock.now)
        #expect(try await registry.answer(response, by: drawing) == .dismissAndForwardAction)
        let later = ResponseSpec(notification: notification, actionIdentifier: "later", date: clock.now)
        #expect(try await registry.answer(later, by: drawing) == .dismiss)

        await center.setContentExtension(categories: ["invite"], nil)
        #expect(await registry.contentExtension(for: notification) == nil)

        // The app closes its connection (as its process ending would): the daemon unregisters its extension.
        await center.setContentExtension(categories: ["invite"]) { InviteView() }
        #expect(await registry.contentExtension(for: notification) != nil)
        await backend.connection(for: app).close()
        let deadline = ContinuousClock.now + .seconds(30)
        while await registry.contentExtension(for: notification) != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await registry.contentExtension(for: notification) == nil, "still registered after the app closed")
    }
}
