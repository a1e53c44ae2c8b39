// A rich-notification service extension as iOS apps write it (the pattern of Apple's sample and most public
// extensions), with only `import UserNotifications` changed: read an image URL from the payload, download it with
// URLSession.shared, move the file to a temporary folder with the right extension, attach it, and hand the content
// back on the main queue. Compiled in Swift 5 language mode, as such extensions are.
import OpenUserNotifications

class NotificationService: UNNotificationServiceExtension {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)

        guard let bestAttemptContent = bestAttemptContent,
              let urlString = request.content.userInfo["image-url"] as? String,
              let url = URL(string: urlString) else {
            contentHandler(request.content)
            return
        }

        let task = URLSession.shared.downloadTask(with: url) { location, response, error in
            if let location = location, error == nil {
                let tmpDirectory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
                    .appendingPathComponent(ProcessInfo.processInfo.globallyUniqueString, isDirectory: true)
                try? FileManager.default.createDirectory(at: tmpDirectory, withIntermediateDirectories: true, attributes: nil)
                let fileURL = tmpDirectory.appendingPathComponent(url.lastPathComponent)
                try? FileManager.default.moveItem(at: location, to: fileURL)
                if let attachment = try? UNNotificationAttachment(identifier: "image", url: fileURL, options: nil) {
                    bestAttemptContent.attachments = [attachment]
                }
            }
            OperationQueue.main.addOperation {
                contentHandler(bestAttemptContent)
            }
        }
        task.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        // Called just before the extension will be terminated by the system.
        // Use this as an opportunity to deliver your "best attempt" at modified content, otherwise the original push payload will be used.
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            bestAttemptContent.title = bestAttemptContent.title + " [no image]"
            contentHandler(bestAttemptContent)
        }
    }
}
