// The Swift samples of docs/rich-notifications.md, compiled (DocSnippetTests checks that each stands here line for
// line).
import Foundation
import OpenIntents
import OpenUserNotifications

enum RichNotificationSnippets {
    static func download(
        url: URL, bestAttemptContent: UNMutableNotificationContent,
        contentHandler: @escaping @Sendable (UNNotificationContent) -> Void
    ) {
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

    static func message(
        request: UNNotificationRequest, senderID: String, senderName: String, avatar: INImage?,
        groupName: INSpeakableString?, userInfo: [AnyHashable: Any],
        contentHandler: (UNNotificationContent) -> Void
    ) {
        let handle = INPersonHandle(value: senderID, type: .unknown)
        let sender = INPerson(personHandle: handle,
                              nameComponents: nil,
                              displayName: senderName,
                              image: avatar,
                              contactIdentifier: nil,
                              customIdentifier: senderID)
        let intent = INSendMessageIntent(recipients: nil,
                                         outgoingMessageType: .outgoingMessageText,
                                         content: request.content.body,
                                         speakableGroupName: groupName,
                                         conversationIdentifier: userInfo["conversation-id"] as? String,
                                         serviceName: nil,
                                         sender: sender,
                                         attachments: nil)

        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate(completion: nil)

        do {
            let updatedContent = try request.content.updating(from: intent)
            contentHandler(updatedContent)
        } catch {
            contentHandler(request.content)
        }
    }

    static func archive(request: UNNotificationRequest) throws -> UNNotificationRequest? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: UNNotificationRequest.self, from: data)
        return restored
    }
}
