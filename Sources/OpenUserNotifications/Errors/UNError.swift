import Foundation

/// The domain of ``UNError``.
public let UNErrorDomain: String = "UNErrorDomain"

/// An error from the notification system, with Apple's codes and domain.
///
/// ```swift
/// do {
///     try await UNUserNotificationCenter.current().add(request)
/// } catch UNError.notificationsNotAllowed {
///     // ask the person to allow notifications
/// }
/// ```
public struct UNError: Error, CustomNSError, Hashable, Sendable, CustomStringConvertible {
    /// The error codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        case notificationsNotAllowed = 1
        case attachmentInvalidURL = 100
        case attachmentUnrecognizedType = 101
        case attachmentInvalidFileSize = 102
        case attachmentNotInDataStore = 103
        case attachmentMoveIntoDataStoreFailed = 104
        case attachmentCorrupt = 105
        case notificationInvalidNoDate = 1400
        case notificationInvalidNoContent = 1401
        case contentProvidingObjectNotAllowed = 1500
        case contentProvidingInvalid = 1501
        case badgeInputInvalid = 1600
    }

    public let code: Code
    /// What happened, in one sentence.
    public let localizedReason: String

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.localizedReason = (userInfo[NSLocalizedDescriptionKey] as? String) ?? Self.defaultReason(code)
    }

    package init(_ code: Code, reason: String) {
        self.code = code
        self.localizedReason = reason
    }

    public static var errorDomain: String { UNErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: localizedReason] }
    public var description: String { "UNErrorDomain \(code.rawValue): \(localizedReason)" }

    public static let notificationsNotAllowed = Code.notificationsNotAllowed
    public static let attachmentInvalidURL = Code.attachmentInvalidURL
    public static let attachmentUnrecognizedType = Code.attachmentUnrecognizedType
    public static let attachmentInvalidFileSize = Code.attachmentInvalidFileSize
    public static let attachmentNotInDataStore = Code.attachmentNotInDataStore
    public static let attachmentMoveIntoDataStoreFailed = Code.attachmentMoveIntoDataStoreFailed
    public static let attachmentCorrupt = Code.attachmentCorrupt
    public static let notificationInvalidNoDate = Code.notificationInvalidNoDate
    public static let notificationInvalidNoContent = Code.notificationInvalidNoContent
    public static let contentProvidingObjectNotAllowed = Code.contentProvidingObjectNotAllowed
    public static let contentProvidingInvalid = Code.contentProvidingInvalid
    public static let badgeInputInvalid = Code.badgeInputInvalid

    private static func defaultReason(_ code: Code) -> String {
        switch code {
        case .notificationsNotAllowed: "Notifications are not allowed"
        case .attachmentInvalidURL: "Invalid attachment file URL"
        case .attachmentUnrecognizedType: "Unrecognized attachment file type"
        case .attachmentInvalidFileSize: "Invalid attachment file size"
        case .attachmentNotInDataStore: "Attachment is not in the data store"
        case .attachmentMoveIntoDataStoreFailed: "Could not move the attachment into the data store"
        case .attachmentCorrupt: "Attachment file is corrupt"
        case .notificationInvalidNoDate: "The notification has no date, but should"
        case .notificationInvalidNoContent: "The notification has no content"
        case .contentProvidingObjectNotAllowed: "The content-providing object is not allowed"
        case .contentProvidingInvalid: "The content-providing object is invalid"
        case .badgeInputInvalid: "Invalid badge count"
        }
    }
}

extension UNError.Code {
    /// Lets `catch UNError.notificationsNotAllowed` match, as with Apple's bridged errors.
    public static func ~= (code: UNError.Code, error: any Error) -> Bool {
        (error as? UNError)?.code == code
    }
}
