// The Swift samples of docs/rich-notifications.md, compiled (DocSnippetTests checks that each stands here line for
// line); the download extension's stands in Tests/Fixtures/RichNotificationFixture, where it also runs.
import Foundation
import OpenIntents
import OpenUserNotifications

enum RichNotificationSnippets {
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
