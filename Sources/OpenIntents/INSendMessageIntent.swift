import Foundation
import OpenUserNotifications

/// The kind of an outgoing message.
public enum INOutgoingMessageType: Int, Sendable, Hashable {
    case unknown = 0
    case outgoingMessageText = 1
    case outgoingMessageAudio = 2
}

/// A file attached to a message (an audio message). Kept for source compatibility; not shown on Linux.
open class INSendMessageAttachment: NSObject, @unchecked Sendable {}

/// An intent to send a message; in a notification service extension, the message a push announces, which
/// ``UNNotificationContent/updating(from:)`` turns into a communication notification from its sender.
///
/// ```swift
/// let intent = INSendMessageIntent(recipients: nil, outgoingMessageType: .outgoingMessageText,
///                                  content: "Running late", speakableGroupName: nil,
///                                  conversationIdentifier: "chat-42", serviceName: nil, sender: sender,
///                                  attachments: nil)
/// contentHandler(try request.content.updating(from: intent))
/// ```
open class INSendMessageIntent: INIntent, UNNotificationContentProviding, @unchecked Sendable {  // immutable after init
    public let recipients: [INPerson]?
    public let outgoingMessageType: INOutgoingMessageType
    /// The message's text.
    public let content: String?
    /// The group's name in a group conversation.
    public let speakableGroupName: INSpeakableString?
    public let conversationIdentifier: String?
    public let serviceName: String?
    /// Who sent the message.
    public let sender: INPerson?
    public let attachments: [INSendMessageAttachment]?
    /// Details about the message for donations (iOS 15).
    public var donationMetadata: INSendMessageIntentDonationMetadata?

    /// Creates a message intent (iOS 14).
    public init(
        recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?,
        speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?, sender: INPerson?,
        attachments: [INSendMessageAttachment]?
    ) {
        self.recipients = recipients
        self.outgoingMessageType = outgoingMessageType
        self.content = content
        self.speakableGroupName = speakableGroupName
        self.conversationIdentifier = conversationIdentifier
        self.serviceName = serviceName
        self.sender = sender
        self.attachments = attachments
    }

    /// Creates a message intent without attachments.
    public convenience init(
        recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?,
        speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?, sender: INPerson?
    ) {
        self.init(
            recipients: recipients, outgoingMessageType: outgoingMessageType, content: content,
            speakableGroupName: speakableGroupName, conversationIdentifier: conversationIdentifier,
            serviceName: serviceName, sender: sender, attachments: nil)
    }

    /// The group's picture when one was set for `\.speakableGroupName`, otherwise the sender's.
    open override func keyImage() -> INImage? {
        image(forParameterNamed: \.speakableGroupName) ?? sender?.image
    }
}

/// Details about a message for donations (iOS 15).
open class INSendMessageIntentDonationMetadata: NSObject, @unchecked Sendable {
    public var mentionsCurrentUser = false
    public var isReplyToCurrentUser = false
    public var notifyRecipientAnyway = false
    public var recipientCount = 0

    public override init() {}
}
