import Foundation
import NotificationModel
import OpenUserNotifications

extension INSendMessageIntent: CommunicationContentProvider {
    package func communicationSpec() throws -> CommunicationSpec {
        guard let sender else {
            throw UNError(.contentProvidingInvalid, userInfo: [NSLocalizedDescriptionKey: "the message intent has no sender"])
        }
        let image = keyImage()
        return CommunicationSpec(
            senderName: sender.displayName, senderHandle: sender.personHandle?.value, senderImageData: image?.imageData,
            senderImageURL: image?.imageURL, conversationIdentifier: conversationIdentifier,
            groupName: speakableGroupName?.spokenPhrase)
    }
}

extension UNNotificationAttributedMessageContext {
    /// Creates a context from a message intent and the message's text (iOS 18).
    ///
    /// ```swift
    /// let context = UNNotificationAttributedMessageContext(
    ///     sendMessageIntent: intent, attributedContent: NSAttributedString(string: "See you at 8"))
    /// ```
    public convenience init(sendMessageIntent: INSendMessageIntent, attributedContent: NSAttributedString) {
        self.init(communication: { try sendMessageIntent.communicationSpec() }, attributedContent: attributedContent)
    }
}
