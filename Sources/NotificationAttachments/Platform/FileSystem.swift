#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("NotificationAttachments: unsupported operating system")
#endif

/// The few POSIX file-system calls the module needs, in one place.
enum FileSystem {
    /// The canonical absolute path of `path` (every symbolic link, `.` and `..` resolved), or `nil` when it does
    /// not resolve (missing, dangling link, loop, a component the process may not search).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The entry named `path` itself (a final symbolic link is not followed), or `nil` when there is none.
    static func linkStatus(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// Whether `info` describes a regular file.
    static func isRegular(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFREG }

    /// Whether `info` describes a symbolic link.
    static func isSymbolicLink(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFLNK }

    /// Whether `info` describes a directory.
    static func isDirectory(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFDIR }

    /// Whether two status records name the same file.
    static func sameFile(_ a: stat, _ b: stat) -> Bool { a.st_dev == b.st_dev && a.st_ino == b.st_ino }

    /// Whether the calling process (its real user and group, as `access(2)` checks) may read `path`.
    static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Opens `path` for reading without following a final symbolic link and without blocking on a FIFO.
    static func openForReading(_ path: String) -> Int32? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Creates `path` for writing, failing when any entry (a symbolic link included) already has the name.
    static func createExclusively(_ path: String, mode: mode_t = 0o600) -> Int32? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        return descriptor >= 0 ? descriptor : nil
    }

    /// The status of an open descriptor.
    static func status(of descriptor: Int32) -> stat? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? info : nil
    }

    /// Reads up to `count` bytes at `offset`; fewer at the end of the file.
    static func read(_ descriptor: Int32, count: Int, at offset: Int) -> [UInt8]? {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            filled += got
        }
        return Array(buffer[0..<filled])
    }

    /// Copies everything from `source` (from its start) to `destination`, then flushes it to disk.
    static func copy(from source: Int32, to destination: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, $0.count, off_t(offset)) }
            if got < 0 {
                if errno == EINTR { continue }
                return false
            }
            if got == 0 { break }
            offset += got
            var written = 0
            while written < got {
                let put = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + written, got - written) }
                if put < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += put
            }
        }
        return fsync(destination) == 0
    }

    /// Closes a descriptor.
    static func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// Renames `from` to `to`; the `errno` value on failure.
    static func rename(_ from: String, _ to: String) -> Int32? {
        systemRename(from, to) == 0 ? nil : errno
    }

    /// Whether a rename failed because the two paths are on different file systems.
    static func isCrossDevice(_ error: Int32) -> Bool { error == EXDEV }

    /// Removes the entry `path` (a symbolic link itself, never its target).
    @discardableResult
    static func unlinkEntry(_ path: String) -> Bool { unlink(path) == 0 }

    /// Removes the directory `path` when it is empty.
    @discardableResult
    static func removeEmptyDirectory(_ path: String) -> Bool { rmdir(path) == 0 }

    /// Creates one directory with `mode`; succeeds when a directory (not a link) already has the name.
    static func makeDirectory(_ path: String, mode: mode_t = 0o700) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        guard errno == EEXIST, let info = linkStatus(path) else { return false }
        return isDirectory(info)
    }

    /// A description of the current `errno`.
    static var lastError: String { String(cString: strerror(errno)) }

    /// A description of an `errno` value.
    static func describe(_ error: Int32) -> String { String(cString: strerror(error)) }
}

private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
