import Foundation

#if os(Linux)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
    #error("PrivateFile needs open(2) with a mode: Linux or Darwin")
#endif

/// Writes small files only their owner can read: created with mode 0600 from the first byte (never readable by
/// others in between, whatever the umask), then renamed over the old file, in a folder of mode 0700.
enum PrivateFile {
    /// Writes `text` to `path` atomically with mode 0600, making the folder (0700) when missing.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/secretUnavailable``) naming the path and the system's reason.
    static func store(_ text: String, at path: String) throws(WebCenterError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw WebCenterError(.secretUnavailable, "cannot make the folder \(folder): \(error)")
        }
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        // An existing file keeps its mode on O_TRUNC: make it 0600 before anything is written.
        fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else {
            unlink(temporary)
            throw failure("cannot write", temporary)
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename into", path)
            unlink(temporary)
            throw error
        }
    }

    /// Reads a file as UTF-8 text.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/secretUnavailable``) when it cannot be read.
    static func read(_ path: String) throws(WebCenterError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WebCenterError(.secretUnavailable, "cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The mode bits of a file, or `nil` when it does not exist.
    static func mode(of path: String) -> UInt32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt32(status.st_mode) & 0o777
    }

    private static func failure(_ what: String, _ path: String) -> WebCenterError {
        WebCenterError(.secretUnavailable, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
