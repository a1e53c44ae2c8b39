/// Why a file cannot be an attachment, one case per code of Apple's `UNError`.
///
/// A struct wrapping an internal enum, so new reasons never break users; ``code`` gives Apple's raw value
/// (`UNError.Code` in OpenUserNotifications).
///
/// ```swift
/// do { _ = try AttachmentValidator.validate(path: path, typeHint: nil) } catch let error as AttachmentError {
///     print(error.code, error.message)   // 101 "notes.png is not an image, sound or movie Apple accepts …"
/// }
/// ```
public struct AttachmentError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Int, Sendable, Hashable {
        case invalidURL = 100
        case unrecognizedType = 101
        case invalidFileSize = 102
        case notInDataStore = 103
        case moveIntoDataStoreFailed = 104
        case corrupt = 105
    }

    let kind: Kind
    /// What happened, in one sentence naming the file.
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The raw value of Apple's `UNError.Code` for this error (100 to 105).
    public var code: Int { kind.rawValue }

    /// The file is missing, not a regular file, not readable, or not a `file:` URL (`attachmentInvalidURL`).
    public static let invalidURL = 100
    /// The type is not one Apple accepts, or the content does not match it (`attachmentUnrecognizedType`).
    public static let unrecognizedType = 101
    /// The file is empty or larger than its category's limit (`attachmentInvalidFileSize`).
    public static let invalidFileSize = 102
    /// A file that should be in the data store is not there (`attachmentNotInDataStore`).
    public static let notInDataStore = 103
    /// The file could not be moved or copied into the data store (`attachmentMoveIntoDataStoreFailed`).
    public static let moveIntoDataStoreFailed = 104
    /// The content says image but its structure is broken (`attachmentCorrupt`).
    public static let corrupt = 105

    /// The code and the message.
    public var description: String { "attachment error \(code): \(message)" }
}
