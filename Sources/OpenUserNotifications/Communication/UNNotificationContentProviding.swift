import Foundation
import NotificationModel

/// A type whose values can update a notification's content, such as `INSendMessageIntent` (a message from a
/// person) or ``UNNotificationAttributedMessageContext``: pass one to ``UNNotificationContent/updating(from:)``.
///
/// ```swift
/// let updated = try content.updating(from: intent)   // intent: INSendMessageIntent
/// contentHandler(updated)
/// ```
///
/// > Note: On Linux, as on Apple platforms, only the system's types are honoured: the intents of the `OpenIntents`
/// > module and ``UNNotificationAttributedMessageContext``. Any other conforming type makes `updating(from:)`
/// > throw `contentProvidingObjectNotAllowed`.
public protocol UNNotificationContentProviding: NSObjectProtocol {}

/// What a content provider of the system's gives ``UNNotificationContent/updating(from:)``: the sender and
/// conversation, and optionally a new body. `OpenIntents` conforms `INSendMessageIntent` to it.
package protocol CommunicationContentProvider: UNNotificationContentProviding {
    /// The sender and conversation.
    /// - Throws: ``UNError`` with `contentProvidingInvalid` when the provider lacks what a message needs.
    func communicationSpec() throws -> CommunicationSpec
    /// A body that replaces the content's, or `nil` to keep it.
    var messageBody: String? { get }
}

extension CommunicationContentProvider {
    package var messageBody: String? { nil }
}
