import Foundation

/// An error from the engine: bad input or a store failure.
///
/// The API module turns the codes that Apple has into `UNError`; the rest surface as this type, whose
/// `description` is one clear sentence.
public struct EngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Hashable, Sendable {
        /// The app's authorization was denied (`UNError.notificationsNotAllowed`).
        case notificationsNotAllowed
        /// The trigger can never produce a fire date (`UNError.notificationInvalidNoDate`).
        case invalidNoDate
        /// A trigger value that Apple's framework would trap on.
        case invalidTrigger
        /// `userInfo` holds a value that is not a property-list type.
        case invalidUserInfo
        /// No delivered notification has that identifier.
        case unknownNotification
        /// The notification's category has no such action, or text was given to a plain action.
        case unknownAction
        /// A badge count below zero (`UNError.badgeInputInvalid`).
        case badgeInputInvalid
        /// Any other malformed input.
        case invalidArgument
        /// The store could not read or write.
        case storeFailure
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
