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
        /// The daemon could not be reached.
        case unavailable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension EngineError.Code {
    /// The code's name, as the wire protocol carries it.
    public var name: String {
        switch self {
        case .notificationsNotAllowed: "notificationsNotAllowed"
        case .invalidNoDate: "invalidNoDate"
        case .invalidTrigger: "invalidTrigger"
        case .invalidUserInfo: "invalidUserInfo"
        case .unknownNotification: "unknownNotification"
        case .unknownAction: "unknownAction"
        case .badgeInputInvalid: "badgeInputInvalid"
        case .invalidArgument: "invalidArgument"
        case .storeFailure: "storeFailure"
        case .unavailable: "unavailable"
        }
    }

    /// The code with this name.
    public init?(name: String) {
        let all: [EngineError.Code] = [
            .notificationsNotAllowed, .invalidNoDate, .invalidTrigger, .invalidUserInfo, .unknownNotification,
            .unknownAction, .badgeInputInvalid, .invalidArgument, .storeFailure, .unavailable,
        ]
        guard let code = all.first(where: { $0.name == name }) else { return nil }
        self = code
    }
}
