import Foundation

/// How a person came to be suggested (iOS 15).
public enum INPersonSuggestionType: Int, Sendable, Hashable {
    case none = 0
    case socialProfile = 1
    case instantMessageAddress = 2
}

/// A person in an intent: the sender or a recipient of a message.
///
/// ```swift
/// let sender = INPerson(personHandle: INPersonHandle(value: "ana@example.com", type: .emailAddress),
///                       nameComponents: nil, displayName: "Ana", image: INImage(imageData: avatar),
///                       contactIdentifier: nil, customIdentifier: "user-17")
/// ```
open class INPerson: NSObject, @unchecked Sendable {  // immutable after init
    public let personHandle: INPersonHandle?
    public let nameComponents: PersonNameComponents?
    /// The name to show; built from the name components or the handle when not given.
    public let displayName: String
    /// The person's picture.
    public let image: INImage?
    public let contactIdentifier: String?
    public let customIdentifier: String?
    /// Whether the person is the device's owner.
    public let isMe: Bool
    public let suggestionType: INPersonSuggestionType

    /// Creates a person.
    public convenience init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?
    ) {
        self.init(
            personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
            contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, isMe: false, suggestionType: .none)
    }

    /// Creates a person who may be the device's owner.
    public convenience init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?, isMe: Bool
    ) {
        self.init(
            personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
            contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, isMe: isMe, suggestionType: .none)
    }

    /// Creates a person with a suggestion type (iOS 15).
    public init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?, isMe: Bool, suggestionType: INPersonSuggestionType
    ) {
        self.personHandle = personHandle
        self.nameComponents = nameComponents
        // Given, middle and family name in that order (Foundation's formatter is not complete on Linux).
        let formatted = [nameComponents?.givenName, nameComponents?.middleName, nameComponents?.familyName]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        self.displayName = displayName ?? (formatted.isEmpty ? personHandle.value ?? "" : formatted)
        self.image = image
        self.contactIdentifier = contactIdentifier
        self.customIdentifier = customIdentifier
        self.isMe = isMe
        self.suggestionType = suggestionType
    }
}
