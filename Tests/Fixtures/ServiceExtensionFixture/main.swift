// A service extension executable for the tests (ServiceExtensionTests): what it does with a push depends on
// the push's `fixture` key.
//   modify      appends " [modified]" to the title at once
//   attach      also attaches a copy of the file at `image` (as a download would)
//   late        answers only when told the time is up, with " [best attempt]"
//   crash       exits without answering
import Foundation
import OpenUserNotifications

final class FixtureService: UNNotificationServiceExtension, @unchecked Sendable {
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttempt: UNMutableNotificationContent?

    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        switch request.content.userInfo["fixture"] as? String {
        case "crash":
            exit(3)
        case "late":
            content.title += " [best attempt]"
            bestAttempt = content
            self.contentHandler = contentHandler
        case "attach":
            let source = URL(fileURLWithPath: request.content.userInfo["image"] as? String ?? "/nonexistent")
            let download = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-\(UUID().uuidString).png")
            try? FileManager.default.copyItem(at: source, to: download)
            if let attachment = try? UNNotificationAttachment(identifier: "image", url: download) {
                content.attachments = [attachment]
            }
            content.title += " [modified]"
            contentHandler(content)
        default:
            content.title += " [modified]"
            contentHandler(content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttempt { contentHandler(bestAttempt) }
    }
}

await UNNotificationServiceExtension.runAsProcess { FixtureService() }
