import Foundation
import NotificationAttachments
import NotificationModel

/// The option key for an attachment's type: a uniform type identifier string such as `public.png`. Without it
/// the type is taken from the file-name extension.
public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"
/// The option key for hiding the thumbnail (a `Bool`; `false` by default).
public let UNNotificationAttachmentOptionsThumbnailHiddenKey: String = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
/// The option key for the thumbnail's clipping rectangle, in unit coordinates: a dictionary with the numbers
/// `X`, `Y`, `Width` and `Height` (what `CGRectCreateDictionaryRepresentation` makes), or a `CGRect`.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey: String =
    "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
/// The option key for the frame of an animated image (a number) or the time in a movie used as thumbnail
/// (seconds as a number, or a time dictionary).
public let UNNotificationAttachmentOptionsThumbnailTimeKey: String = "UNNotificationAttachmentOptionsThumbnailTimeKey"

/// An image, sound or movie shown with a notification.
///
/// Apple's rules apply, when the attachment is created and again when the request holding it is added: the file
/// must exist and be readable (`attachmentInvalidURL`); its type — by the type hint or the file-name extension,
/// checked against the file's content — must be a JPEG, GIF or PNG image, an AIFF, WAV, MP3 or MPEG-4 audio file,
/// or an MPEG, MPEG-2, MPEG-4 or AVI movie (`attachmentUnrecognizedType`); and its size at most 10 MB for images,
/// 5 MB for audio, 50 MB for movies (`attachmentInvalidFileSize`). When the request is added, a broken image is
/// `attachmentCorrupt`, and the file is moved into the app's attachment data store (copied when it lies in the
/// app's bundle directory); the delivered notification's attachment names the stored file.
///
/// ```swift
/// let url = URL(fileURLWithPath: "/tmp/photo.png")
/// let attachment = try UNNotificationAttachment(identifier: "photo", url: url,
///     options: [UNNotificationAttachmentOptionsThumbnailHiddenKey: true])
/// content.attachments = [attachment]
/// try await UNUserNotificationCenter.current().add(request)   // /tmp/photo.png moves into the data store
/// ```
///
/// > Note: On Linux, the data store is a folder of the user's (see
/// > ``OpenUserNotificationsConfiguration/attachmentStorePath``), the move happens in the app's process, and a
/// > symbolic link is never moved: the file it leads to is copied. See `docs/attachments.md`.
public final class UNNotificationAttachment: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // immutable: `spec` is a `let`
    package let spec: AttachmentSpec

    /// The identifier; a generated one when the attachment was created with an empty identifier.
    public var identifier: String { spec.identifier }
    /// The file: where it was at creation, and in the attachment data store for attachments read back from the
    /// center (pending requests, delivered notifications, responses).
    public var url: URL { spec.url }
    /// The uniform type identifier of the file, such as `public.png`.
    public var type: String { spec.type }

    package init(spec: AttachmentSpec) {
        self.spec = spec
    }

    /// Attachments archive securely.
    public static var supportsSecureCoding: Bool { true }

    /// Decodes an attachment archived with ``encode(with:)``; the file is not checked again.
    public init?(coder: NSCoder) {
        guard let spec = coder.decodeSpec(AttachmentSpec.self, forKey: "attachment") else { return nil }
        self.spec = spec
    }

    /// Archives the attachment: its identifier, URL, type and options, not the file.
    public func encode(with coder: NSCoder) { coder.encodeSpec(spec, forKey: "attachment") }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationAttachment)?.spec == spec }
    public override var hash: Int { spec.hashValue }

    /// Creates an attachment for a local file, checking it by Apple's rules.
    ///
    /// - Parameters:
    ///   - identifier: A unique identifier; empty generates one.
    ///   - URL: A file URL.
    ///   - options: `UNNotificationAttachmentOptions…Key` values: the type hint, whether the thumbnail is hidden,
    ///     its clipping rectangle and its time; kept with the attachment.
    /// - Throws: ``UNError`` with `attachmentInvalidURL`, `attachmentUnrecognizedType` or
    ///   `attachmentInvalidFileSize`.
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        guard URL.isFileURL else {
            throw UNError(.attachmentInvalidURL, reason: "attachment URL \(URL) is not a file URL")
        }
        let storedOptions = Self.storedOptions(options)
        let hint = storedOptions[UNNotificationAttachmentOptionsTypeHintKey].flatMap(Self.string)
        let validated: ValidatedAttachment
        do {
            validated = try AttachmentValidator.validate(path: URL.path, typeHint: hint, checkStructure: false)
        } catch {
            throw Self.publicError(error)
        }
        self.init(
            spec: AttachmentSpec(
                identifier: identifier.isEmpty ? UUID().uuidString : identifier, url: URL, type: validated.kind.uti,
                options: storedOptions))
    }

    /// The options as property-list values; a `CGRect` clipping rectangle becomes its dictionary form, values that
    /// are not property lists are left out.
    static func storedOptions(_ options: [AnyHashable: Any]?) -> [String: PropertyListValue] {
        var stored: [String: PropertyListValue] = [:]
        for (key, value) in options ?? [:] {
            guard let key = key.base as? String else { continue }
            if let rect = value as? CGRect {
                stored[key] = .dictionary([
                    "X": .double(Double(rect.origin.x)), "Y": .double(Double(rect.origin.y)),
                    "Width": .double(Double(rect.size.width)), "Height": .double(Double(rect.size.height)),
                ])
            } else if let converted = try? PropertyListValue(converting: value) {
                stored[key] = converted
            }
        }
        return stored
    }

    static func string(_ value: PropertyListValue) -> String? {
        if case .string(let string) = value { return string }
        return nil
    }

    /// An ``AttachmentError`` as Apple's ``UNError``.
    static func publicError(_ error: any Error) -> any Error {
        guard let error = error as? AttachmentError, let code = UNError.Code(rawValue: error.code) else { return error }
        return UNError(code, reason: error.message)
    }
}

extension UNNotificationAttachment {
    /// Adds a request the way Apple's `add` treats attachments: every attachment is checked again and moved into
    /// the app's attachment data store, `add` is called with the request naming the stored files, and when any
    /// step fails the files are taken back out (moved back, copies deleted) and nothing is added.
    ///
    /// - Parameters:
    ///   - spec: The request as the app built it.
    ///   - appID: The app.
    ///   - configuration: Where the data store and the app's bundle directory are.
    ///   - add: Hands the request to the engine or the daemon.
    /// - Throws: ``UNError`` with an attachment code, or what `add` throws.
    package static func add(
        _ spec: RequestSpec, appID: String, configuration: OpenUserNotificationsConfiguration,
        through add: (RequestSpec) async throws -> Void
    ) async throws {
        guard !spec.content.attachments.isEmpty else { return try await add(spec) }
        let store = AttachmentStore(rootPath: configuration.resolvedAttachmentStorePath)
        var stored: [StoredAttachment] = []
        var moved = spec
        do {
            for (index, attachment) in spec.content.attachments.enumerated() {
                let (file, spec) = try moveIntoStore(attachment, store: store, appID: appID, configuration: configuration)
                stored.append(file)
                moved.content.attachments[index] = spec
            }
            try await add(moved)
        } catch {
            for file in stored.reversed() { file.undo() }
            throw publicError(error)
        }
    }

    /// ``add(_:appID:configuration:through:)`` for a batch: the attachments of every request are moved into the
    /// data store, `add` is called once with all of them, and when anything fails every file is taken back out.
    package static func add<T>(
        _ specs: [RequestSpec], appID: String, configuration: OpenUserNotificationsConfiguration,
        through add: ([RequestSpec]) async throws -> T
    ) async throws -> T {
        guard specs.contains(where: { !$0.content.attachments.isEmpty }) else { return try await add(specs) }
        let store = AttachmentStore(rootPath: configuration.resolvedAttachmentStorePath)
        var stored: [StoredAttachment] = []
        var moved = specs
        do {
            for (index, spec) in specs.enumerated() {
                for (position, attachment) in spec.content.attachments.enumerated() {
                    let (file, attachment) = try moveIntoStore(
                        attachment, store: store, appID: appID, configuration: configuration)
                    stored.append(file)
                    moved[index].content.attachments[position] = attachment
                }
            }
            return try await add(moved)
        } catch {
            for file in stored.reversed() { file.undo() }
            throw publicError(error)
        }
    }

    /// Checks one attachment again and moves it into the app's data store.
    /// - Returns: The stored file (to undo) and the attachment naming it.
    static func moveIntoStore(
        _ attachment: AttachmentSpec, store: AttachmentStore, appID: String, configuration: OpenUserNotificationsConfiguration
    ) throws -> (StoredAttachment, AttachmentSpec) {
        guard attachment.url.isFileURL else {
            throw UNError(.attachmentInvalidURL, reason: "attachment URL \(attachment.url) is not a file URL")
        }
        let hint = attachment.options[UNNotificationAttachmentOptionsTypeHintKey].flatMap(string)
        let file = try store.move(
            from: attachment.url.path, appID: appID, bundleDirectory: configuration.resolvedBundleDirectory, typeHint: hint)
        var moved = attachment
        moved.url = URL(fileURLWithPath: file.path)
        moved.type = file.validated.kind.uti
        return (file, moved)
    }
}
