/// A file that passed Apple's attachment rules: its type and size.
public struct ValidatedAttachment: Sendable, Hashable {
    /// The type, by content, extension and type hint.
    public var kind: AttachmentKind
    /// The size in bytes.
    public var size: Int
    /// The canonical path of the file checked (symbolic links resolved).
    public var resolvedPath: String

    /// Creates a result.
    public init(kind: AttachmentKind, size: Int, resolvedPath: String) {
        self.kind = kind
        self.size = size
        self.resolvedPath = resolvedPath
    }
}
