import Foundation

/// A string with how to say it, such as a group conversation's name.
///
/// ```swift
/// let group = INSpeakableString(spokenPhrase: "Climbing crew")
/// ```
open class INSpeakableString: NSObject, @unchecked Sendable {  // immutable after init
    public let spokenPhrase: String
    public let vocabularyIdentifier: String?
    public let pronunciationHint: String?

    /// Creates a string said as written.
    public init(spokenPhrase: String) {
        self.spokenPhrase = spokenPhrase
        vocabularyIdentifier = nil
        pronunciationHint = nil
    }

    /// Creates a string with a vocabulary identifier and a pronunciation hint.
    public init(vocabularyIdentifier: String, spokenPhrase: String, pronunciationHint: String?) {
        self.spokenPhrase = spokenPhrase
        self.vocabularyIdentifier = vocabularyIdentifier
        self.pronunciationHint = pronunciationHint
    }
}
