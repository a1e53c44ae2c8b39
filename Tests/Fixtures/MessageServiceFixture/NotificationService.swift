// A communication-notification service extension as a messaging app writes it for iOS 15 (after Apple's
// "Implementing communication notifications"), with only its imports changed: the sender's name, handle and
// avatar from the payload, an INSendMessageIntent, the interaction donated, and the content updated from the intent.
import OpenIntents
import OpenUserNotifications

class NotificationService: UNNotificationServiceExtension {

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let userInfo = request.content.userInfo
        guard let senderName = userInfo["sender-name"] as? String,
              let senderID = userInfo["sender-id"] as? String else {
            contentHandler(request.content)
            return
        }

        var avatar: INImage?
        if let path = userInfo["sender-avatar"] as? String, let data = FileManager.default.contents(atPath: path) {
            avatar = INImage(imageData: data)
        }
        let handle = INPersonHandle(value: senderID, type: .unknown)
        let sender = INPerson(personHandle: handle,
                              nameComponents: nil,
                              displayName: senderName,
                              image: avatar,
                              contactIdentifier: nil,
                              customIdentifier: senderID)

        var groupName: INSpeakableString?
        if let group = userInfo["group-name"] as? String {
            groupName = INSpeakableString(spokenPhrase: group)
        }
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
}
