/// A file placed in the attachment data store by ``AttachmentStore/move(from:appID:bundleDirectory:typeHint:)``.
public struct StoredAttachment: Sendable, Hashable {
    /// How the file came into the store.
    public enum Method: String, Sendable, Hashable {
        /// Renamed (or copied and then deleted, across file systems): the original location is empty.
        case moved
        /// Copied: the original stays (a file in the app's bundle directory, or reached through a symbolic link).
        case copied
        /// The file already was in the store (an attachment read back from the center and added again).
        case alreadyStored
    }

    /// The file in the store.
    public var path: String
    /// The path the attachment named.
    public var originalPath: String
    /// How it came there.
    public var method: Method
    /// Its type and size.
    public var validated: ValidatedAttachment

    /// Creates a record.
    public init(path: String, originalPath: String, method: Method, validated: ValidatedAttachment) {
        self.path = path
        self.originalPath = originalPath
        self.method = method
        self.validated = validated
    }

    /// Takes the file back out of the store, for an `add` that failed after the move: a moved file goes back to
    /// its original place (when that is still free), a copy is deleted, and the file's folder in the store goes.
    public func undo() {
        switch method {
        case .alreadyStored:
            return
        case .moved:
            if FileSystem.linkStatus(originalPath) == nil, FileSystem.rename(path, originalPath) == nil {
                break
            }
            FileSystem.unlinkEntry(path)
        case .copied:
            FileSystem.unlinkEntry(path)
        }
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        FileSystem.removeEmptyDirectory(folder)
    }
}
