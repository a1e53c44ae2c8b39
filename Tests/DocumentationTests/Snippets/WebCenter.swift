// The Swift samples of docs/web-center.md, compiled (DocSnippetTests checks that each stands here line for line).
import Foundation
import OpenUserNotifications

enum WebCenterSnippets {
    static func declaring(center: UNUserNotificationCenter) async throws {
        try await center.setContentExtension(command: ["/opt/chat/bin/InviteView"], categories: ["invite"])
    }

    static func inProcess(center: UNUserNotificationCenter) async {
        final class InviteView: UNNotificationContentExtension {
            func didReceive(_ notification: UNNotification) async -> String { "<h1>Invite</h1>" }
        }
        await center.setContentExtension(categories: ["invite"]) { InviteView() }
    }

    static func contentExtensionMain() async {
        final class InviteView: UNNotificationContentExtension {
            func didReceive(_ notification: UNNotification) async -> String {
                "<h1>\(notification.request.content.title)</h1><p>Friday, 19:00</p>"
            }

            func didReceive(
                _ response: UNNotificationResponse,
                completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
            ) {
                completion(response.actionIdentifier == "accept" ? .dismissAndForwardAction : .doNotDismiss)
            }
        }
        await ContentExtensionProcess.run { InviteView() }
    }
}
