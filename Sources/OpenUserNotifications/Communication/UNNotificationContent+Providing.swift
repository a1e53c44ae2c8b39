import Foundation
import NotificationModel

extension UNNotificationContent {
    /// Returns a copy of this content updated from a provider: with an `INSendMessageIntent`, a communication
    /// notification shown as a message from the intent's sender, with the sender's image in place of the app's icon.
    ///
    /// Call it in a service extension and pass the result to the content handler:
    ///
    /// ```swift
    /// let sender = INPerson(personHandle: INPersonHandle(value: "ana@example.com", type: .emailAddress),
    ///                       nameComponents: nil, displayName: "Ana", image: INImage(imageData: avatar),
    ///                       contactIdentifier: nil, customIdentifier: "ana")
    /// let intent = INSendMessageIntent(recipients: nil, outgoingMessageType: .outgoingMessageText,
    ///                                  content: request.content.body, speakableGroupName: nil,
    ///                                  conversationIdentifier: "chat-42", serviceName: nil, sender: sender,
    ///                                  attachments: nil)
    /// contentHandler(try request.content.updating(from: intent))
    /// ```
    ///
    /// The returned content keeps every property of this one; the presenters show the sender's name (and the
    /// group's, when the intent names one) as the title and the sender's image as the icon.
    ///
    /// - Parameter provider: An `INSendMessageIntent` (from `OpenIntents`) or a
    ///   ``UNNotificationAttributedMessageContext``.
    /// - Returns: The updated content.
    /// - Throws: ``UNError`` with `contentProvidingObjectNotAllowed` for a provider that is not one of the system's,
    ///   `contentProvidingInvalid` for one without a sender name.
    ///
    /// > Note: On Linux, the intent types come from the `OpenIntents` module, since Intents does not exist there.
    public func updating(from provider: any UNNotificationContentProviding) throws -> UNNotificationContent {
        guard let provider = provider as? any CommunicationContentProvider else {
            throw UNError(
                .contentProvidingObjectNotAllowed, reason: "\(type(of: provider)) is not a content provider of the system's")
        }
        let communication = try provider.communicationSpec()
        guard !communication.senderName.isEmpty else {
            throw UNError(.contentProvidingInvalid, reason: "the message has no sender name")
        }
        let updated = UNNotificationContent()
        updated.assign(from: self)
        updated._communication = communication
        if let body = provider.messageBody { updated._body = body }
        return updated
    }

    /// The sender and conversation, when the content was updated from a message intent.
    package var communication: CommunicationSpec? { _communication }
}
