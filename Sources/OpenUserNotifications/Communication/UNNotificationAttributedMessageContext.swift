import Foundation
import NotificationModel

/// A message intent with the message's text as an attributed string: pass it to
/// ``UNNotificationContent/updating(from:)`` to show a communication notification whose body is that text.
///
/// ```swift
/// let context = UNNotificationAttributedMessageContext(
///     sendMessageIntent: intent, attributedContent: NSAttributedString(string: "See you at 8"))
/// contentHandler(try request.content.updating(from: context))
/// ```
///
/// > Note: On Linux, the initializer taking an `INSendMessageIntent` is declared by the `OpenIntents` module
/// > (where the intent types live); the notification shows the attributed string's characters without attributes.
open class UNNotificationAttributedMessageContext: NSObject, CommunicationContentProvider, @unchecked Sendable {
    // Immutable after init.
    private let communication: () throws -> CommunicationSpec
    /// The text that becomes the notification's body.
    package let attributedContent: NSAttributedString

    /// Creates a context from a provider of the sender and conversation: what `OpenIntents`'s
    /// `init(sendMessageIntent:attributedContent:)` calls.
    package init(communication: @escaping () throws -> CommunicationSpec, attributedContent: NSAttributedString) {
        self.communication = communication
        self.attributedContent = attributedContent
    }

    package func communicationSpec() throws -> CommunicationSpec { try communication() }

    package var messageBody: String? { attributedContent.string }
}
