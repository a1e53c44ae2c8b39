#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("NotificationAttachments: unsupported operating system")
#endif

/// An attachment file opened once for reading, safely: every later check and the copy read this descriptor, so a
/// file swapped in under the same name after the checks is never read.
///
/// Opening resolves the path (every symbolic link), refuses what the calling user may not read (`access(R_OK)`,
/// then `open` itself with the user's rights), opens the resolved path with `O_NOFOLLOW` (a link swapped in
/// between fails) and `O_NONBLOCK` (a FIFO cannot block), and keeps it only when `fstat` says regular file.
final class OpenedAttachmentFile {
    /// The open descriptor, closed on deinit.
    let descriptor: Int32
    /// The path as given.
    let requestedPath: String
    /// The canonical path, symbolic links resolved.
    let resolvedPath: String
    /// Whether the path given was itself a symbolic link.
    let isSymbolicLink: Bool
    /// The file's identity and size, from the descriptor.
    let status: stat

    /// The size in bytes.
    var size: Int { Int(status.st_size) }

    /// Pseudo file systems whose entries are not files a person attaches.
    private static let pseudoFileSystems = ["/proc/", "/sys/", "/dev/"]

    /// Opens `path`.
    /// - Throws: ``AttachmentError`` `invalidURL` when the path is missing, a dangling link, not readable, not a
    ///   regular file, or on a pseudo file system.
    init(path: String) throws {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let entry = FileSystem.linkStatus(path) else {
            throw AttachmentError(.invalidURL, "attachment file \(path) does not exist or cannot be reached")
        }
        guard let resolved = FileSystem.realPath(path) else {
            throw AttachmentError(.invalidURL, "attachment \(path) is a symbolic link that leads nowhere")
        }
        guard !Self.pseudoFileSystems.contains(where: resolved.hasPrefix) else {
            throw AttachmentError(.invalidURL, "attachment \(name) resolves to \(resolved), which is not a file")
        }
        guard FileSystem.isReadable(resolved), let descriptor = FileSystem.openForReading(resolved) else {
            throw AttachmentError(.invalidURL, "attachment file \(resolved) is not readable by this user")
        }
        guard let status = FileSystem.status(of: descriptor), FileSystem.isRegular(status) else {
            FileSystem.close(descriptor)
            throw AttachmentError(.invalidURL, "attachment \(resolved) is not a regular file")
        }
        self.descriptor = descriptor
        self.status = status
        self.requestedPath = path
        self.resolvedPath = resolved
        self.isSymbolicLink = FileSystem.isSymbolicLink(entry)
    }

    deinit {
        FileSystem.close(descriptor)
    }

    /// Up to `count` bytes from `offset`.
    func read(count: Int, at offset: Int = 0) throws -> [UInt8] {
        guard let bytes = FileSystem.read(descriptor, count: count, at: offset) else {
            throw AttachmentError(.invalidURL, "attachment file \(resolvedPath) could not be read: \(FileSystem.lastError)")
        }
        return bytes
    }
}
