import Foundation

/// Who a communication notification is from: what `UNNotificationContent.updating(from:)` takes from an
/// `INSendMessageIntent`, for presenters to show the notification as a message from a person.
public struct CommunicationSpec: Sendable, Hashable, Codable {
    /// The sender's name, shown as the notification's title.
    public var senderName: String
    /// The sender's handle (an address or number), when the intent gave one.
    public var senderHandle: String?
    /// The sender's image as bytes (`INImage(imageData:)`).
    public var senderImageData: Data?
    /// The sender's image as a file (`INImage(url:)` with a file URL), shown in place of the app's icon.
    public var senderImageURL: URL?
    /// The conversation, for grouping.
    public var conversationIdentifier: String?
    /// The group's name in a group conversation; `nil` in a conversation with one person.
    public var groupName: String?

    public init(
        senderName: String, senderHandle: String? = nil, senderImageData: Data? = nil, senderImageURL: URL? = nil,
        conversationIdentifier: String? = nil, groupName: String? = nil
    ) {
        self.senderName = senderName
        self.senderHandle = senderHandle
        self.senderImageData = senderImageData
        self.senderImageURL = senderImageURL
        self.conversationIdentifier = conversationIdentifier
        self.groupName = groupName
    }

    /// The line a presenter shows as the title: the sender, and the group when there is one.
    public var displayTitle: String {
        if let groupName, !groupName.isEmpty { return "\(senderName) — \(groupName)" }
        return senderName
    }
}
