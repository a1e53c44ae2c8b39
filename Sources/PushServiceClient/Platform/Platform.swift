import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#else
    #error("PushServiceClient: no C library for rename(2) and fsync(2) on this platform")
#endif

/// The operating system calls the receipt queue needs: a file's bytes on disk before a rename, and the rename itself.
enum Platform {
    /// Writes `data` to `temporary`, flushes it to disk (`fsync`), and renames it over `destination` in one step, so
    /// that `destination` holds either the old contents or the new ones after a crash, never a torn file.
    ///
    /// - Throws: ``PushServiceClientError`` naming the call that failed and `errno`'s message.
    static func writeDurably(_ data: Data, to destination: URL, through temporary: URL) throws {
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw failure("open", temporary) }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
        guard ok, fsync(descriptor) == 0 else {
            let error = failure(ok ? "fsync" : "write", temporary)
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw failure("close", temporary) }
        guard rename(temporary.path, destination.path) == 0 else { throw failure("rename", destination) }
        // The rename itself is durable once the folder is flushed.
        let folder = open(destination.deletingLastPathComponent().path, O_RDONLY)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// The error for a failed call on `url`, with `errno`'s message.
    private static func failure(_ call: String, _ url: URL) -> PushServiceClientError {
        PushServiceClientError("\(call) \(url.path): \(String(cString: strerror(errno)))")
    }
}
