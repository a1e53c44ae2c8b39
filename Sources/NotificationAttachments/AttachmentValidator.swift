/// Apple's attachment rules, checked against a file.
///
/// In order:
/// 1. the file exists, is a regular file (after resolving symbolic links) and the calling user can read it,
///    else `invalidURL`;
/// 2. its declared type — the type hint when one is given, else the file-name extension — is one Apple accepts,
///    else `unrecognizedType`;
/// 3. it is not empty, else `invalidFileSize`;
/// 4. its content (magic bytes) is one of Apple's types and of the declared category (a PNG named `.jpg` is fine,
///    a text file named `.png` or a PNG named `.mp3` is not), else `unrecognizedType`;
/// 5. it is within its category's limit (image 10 MB, audio 5 MB, movie 50 MB; decimal), else `invalidFileSize`;
/// 6. with `checkStructure`, an image's structure is whole (PNG chunks, JPEG markers, GIF blocks), else `corrupt`.
///
/// ```swift
/// let checked = try AttachmentValidator.validate(path: "/tmp/photo.png", typeHint: nil)
/// checked.kind   // .png
/// ```
public enum AttachmentValidator {
    /// The general UTIs accepted as a type hint: they name a category and let the content pick the type.
    static let generalTypeHints: [String: AttachmentCategory] = [
        "public.image": .image, "public.audio": .audio, "public.movie": .movie, "public.video": .movie,
    ]

    /// Checks the file at `path`.
    ///
    /// - Parameters:
    ///   - path: An absolute path.
    ///   - typeHint: A UTI from `UNNotificationAttachmentOptionsTypeHintKey`, or `nil` to go by the extension.
    ///   - checkStructure: Whether to read an image whole and check its structure (done at `add`).
    /// - Returns: The type and size.
    /// - Throws: ``AttachmentError``.
    public static func validate(path: String, typeHint: String?, checkStructure: Bool = true) throws -> ValidatedAttachment {
        let file = try OpenedAttachmentFile(path: path)
        return try validate(file, typeHint: typeHint, checkStructure: checkStructure)
    }

    /// Checks an opened file, reading only its descriptor.
    static func validate(
        _ file: OpenedAttachmentFile, typeHint: String?, checkStructure: Bool
    ) throws -> ValidatedAttachment {
        let name = file.requestedPath.split(separator: "/").last.map(String.init) ?? file.requestedPath
        let declaredKind: AttachmentKind?
        let declaredCategory: AttachmentCategory
        if let typeHint {
            if let kind = AttachmentKind(uti: typeHint) {
                (declaredKind, declaredCategory) = (kind, kind.category)
            } else if let category = generalTypeHints[typeHint] {
                (declaredKind, declaredCategory) = (nil, category)
            } else {
                throw AttachmentError(
                    .unrecognizedType, "type hint '\(typeHint)' of \(name) is not an attachment type Apple accepts")
            }
        } else {
            let pathExtension = name.contains(".") ? String(name.split(separator: ".").last ?? "") : ""
            guard let kind = AttachmentKind(pathExtension: pathExtension) else {
                throw AttachmentError(
                    .unrecognizedType,
                    "\(name) has no extension of an image, sound or movie type Apple accepts, and no type hint")
            }
            (declaredKind, declaredCategory) = (kind, kind.category)
        }
        guard file.size > 0 else {
            throw AttachmentError(.invalidFileSize, "attachment \(name) is empty")
        }
        let kind: AttachmentKind
        switch AttachmentContent(header: try file.read(count: AttachmentContent.headerLength)) {
        case .supported(let candidates):
            if let declaredKind, candidates.contains(declaredKind) {
                kind = declaredKind
            } else if let sameCategory = candidates.first(where: { $0.category == declaredCategory }) {
                kind = sameCategory
            } else {
                throw AttachmentError(
                    .unrecognizedType,
                    "\(name) is declared \(declaredKind?.uti ?? declaredCategory.rawValue) but its content is "
                        + "\(candidates[0].uti), a\(candidates[0].category == .image ? "n" : "") "
                        + "\(candidates[0].category)")
            }
        case .unsupported(let format):
            throw AttachmentError(.unrecognizedType, "\(name) is a \(format), not an attachment type Apple accepts")
        case .unknown:
            throw AttachmentError(
                .unrecognizedType, "the content of \(name) is not an image, sound or movie type Apple accepts")
        }
        let limit = kind.category.maximumSize
        guard file.size <= limit else {
            throw AttachmentError(
                .invalidFileSize,
                "attachment \(name) is \(file.size) bytes; \(kind.category) attachments may have at most \(limit)")
        }
        if checkStructure, kind.category == .image,
            let problem = ImageStructure.problem(in: try file.read(count: file.size), kind: kind)
        {
            throw AttachmentError(.corrupt, "attachment \(name) is a corrupt \(kind.uti) image: \(problem)")
        }
        return ValidatedAttachment(kind: kind, size: file.size, resolvedPath: file.resolvedPath)
    }
}
