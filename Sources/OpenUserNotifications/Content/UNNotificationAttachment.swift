import Foundation
import NotificationModel

/// The option key for an attachment's type (a uniform type identifier string) when its extension does not tell.
public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"
/// The option key for hiding the thumbnail (a `Bool`).
public let UNNotificationAttachmentOptionsThumbnailHiddenKey: String = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
/// The option key for the thumbnail's clipping rectangle (a normalized rectangle dictionary).
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey: String =
    "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
/// The option key for the frame or time of an animated image or movie used as thumbnail.
public let UNNotificationAttachmentOptionsThumbnailTimeKey: String = "UNNotificationAttachmentOptionsThumbnailTimeKey"

/// An image, sound or movie shown with a notification.
///
/// The file is checked when the attachment is created: it must exist and be readable, its type must be one
/// Apple supports, and its size within Apple's limit for that type (images 10 MB, audio 5 MB, movies 50 MB).
///
/// ```swift
/// let url = URL(fileURLWithPath: "/tmp/photo.png")
/// let attachment = try UNNotificationAttachment(identifier: "photo", url: url)
/// content.attachments = [attachment]
/// ```
///
/// > Note: On Linux, the type is recognised by the file's extension or the type hint; recognition by content
/// > and the move into the attachment data store arrive with the attachments work.
public final class UNNotificationAttachment: NSObject, @unchecked Sendable {
    package let spec: AttachmentSpec

    /// The identifier; a generated one when the attachment was created with an empty identifier.
    public var identifier: String { spec.identifier }
    /// The file.
    public var url: URL { spec.url }
    /// The uniform type identifier of the file, such as `public.png`.
    public var type: String { spec.type }

    package init(spec: AttachmentSpec) {
        self.spec = spec
    }

    /// Creates an attachment for a local file.
    ///
    /// - Parameters:
    ///   - identifier: A unique identifier; empty generates one.
    ///   - URL: A file URL.
    ///   - options: `UNNotificationAttachmentOptions…Key` values.
    /// - Throws: ``UNError`` with `attachmentInvalidURL`, `attachmentUnrecognizedType` or
    ///   `attachmentInvalidFileSize`.
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        guard URL.isFileURL else {
            throw UNError(.attachmentInvalidURL, reason: "attachment URL \(URL) is not a file URL")
        }
        let path = URL.path
        guard FileManager.default.isReadableFile(atPath: path),
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType != .typeDirectory
        else {
            throw UNError(.attachmentInvalidURL, reason: "attachment file \(path) does not exist or is not readable")
        }
        let hint = options?[UNNotificationAttachmentOptionsTypeHintKey] as? String
        guard let kind = AttachmentKind(typeHint: hint, pathExtension: URL.pathExtension) else {
            throw UNError(.attachmentUnrecognizedType, reason: "attachment \(URL.lastPathComponent) has an unsupported type")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0, size <= kind.category.maximumSize else {
            throw UNError(
                .attachmentInvalidFileSize,
                reason: "attachment \(URL.lastPathComponent) is \(size) bytes; \(kind.category) attachments must be "
                    + "1 to \(kind.category.maximumSize) bytes")
        }
        var storedOptions: [String: PropertyListValue] = [:]
        for (key, value) in options ?? [:] {
            guard let key = key.base as? String, let value = try? PropertyListValue(converting: value) else { continue }
            storedOptions[key] = value
        }
        self.init(
            spec: AttachmentSpec(
                identifier: identifier.isEmpty ? UUID().uuidString : identifier, url: URL, type: kind.uti,
                options: storedOptions))
    }
}

/// The attachment types Apple accepts, with their uniform type identifiers and size limits.
struct AttachmentKind {
    enum Category: CustomStringConvertible {
        case image, audio, movie
        var maximumSize: Int {
            switch self {
            case .image: 10_000_000
            case .audio: 5_000_000
            case .movie: 50_000_000
            }
        }
        var description: String {
            switch self {
            case .image: "image"
            case .audio: "audio"
            case .movie: "movie"
            }
        }
    }

    var uti: String
    var category: Category

    private static let byExtension: [String: AttachmentKind] = [
        "jpg": .init(uti: "public.jpeg", category: .image), "jpeg": .init(uti: "public.jpeg", category: .image),
        "png": .init(uti: "public.png", category: .image), "gif": .init(uti: "com.compuserve.gif", category: .image),
        "aif": .init(uti: "public.aiff-audio", category: .audio), "aiff": .init(uti: "public.aiff-audio", category: .audio),
        "wav": .init(uti: "com.microsoft.waveform-audio", category: .audio),
        "mp3": .init(uti: "public.mp3", category: .audio), "m4a": .init(uti: "public.mpeg-4-audio", category: .audio),
        "mpg": .init(uti: "public.mpeg", category: .movie), "mpeg": .init(uti: "public.mpeg", category: .movie),
        "m2v": .init(uti: "public.mpeg-2-video", category: .movie), "mp4": .init(uti: "public.mpeg-4", category: .movie),
        "avi": .init(uti: "public.avi", category: .movie),
    ]

    init?(typeHint: String?, pathExtension: String) {
        if let typeHint, let kind = Self.byExtension.values.first(where: { $0.uti == typeHint }) {
            self = kind
        } else if let kind = Self.byExtension[pathExtension.lowercased()] {
            self = kind
        } else {
            return nil
        }
    }

    private init(uti: String, category: Category) {
        self.uti = uti
        self.category = category
    }
}
