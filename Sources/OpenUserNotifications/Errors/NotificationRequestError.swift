import Foundation
import NotificationEngine

/// An error for input Apple's framework would trap on or silently accept, where `UNError` has no code:
/// a time interval of zero, a repeating interval under 60 s, a `userInfo` value that is not a property list,
/// an unknown action. Our own addition, so it has no `UN` prefix.
public struct NotificationRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of problem; more may be added, so switch with a `default`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable { case invalidTrigger, invalidUserInfo, unknownNotification, unknownAction, invalidArgument, storeFailure, unavailable }
        fileprivate let value: Value
        public static let invalidTrigger = Kind(value: .invalidTrigger)
        public static let invalidUserInfo = Kind(value: .invalidUserInfo)
        public static let unknownNotification = Kind(value: .unknownNotification)
        public static let unknownAction = Kind(value: .unknownAction)
        public static let invalidArgument = Kind(value: .invalidArgument)
        public static let storeFailure = Kind(value: .storeFailure)
        /// The notification daemon could not be reached.
        public static let unavailable = Kind(value: .unavailable)
        public var description: String { "\(value)" }
    }

    public let kind: Kind
    public let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension EngineError {
    /// The error an app sees: a ``UNError`` where Apple has a code, a ``NotificationRequestError`` otherwise.
    package var publicError: any Error {
        switch code {
        case .notificationsNotAllowed: UNError(.notificationsNotAllowed, reason: message)
        case .invalidNoDate: UNError(.notificationInvalidNoDate, reason: message)
        case .badgeInputInvalid: UNError(.badgeInputInvalid, reason: message)
        case .invalidTrigger: NotificationRequestError(.invalidTrigger, message)
        case .invalidUserInfo: NotificationRequestError(.invalidUserInfo, message)
        case .unknownNotification: NotificationRequestError(.unknownNotification, message)
        case .unknownAction: NotificationRequestError(.unknownAction, message)
        case .invalidArgument: NotificationRequestError(.invalidArgument, message)
        case .storeFailure: NotificationRequestError(.storeFailure, message)
        case .unavailable: NotificationRequestError(.unavailable, message)
        }
    }
}
