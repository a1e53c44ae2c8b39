#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("NotificationSound: unsupported operating system")
#endif

/// The few file-system calls the module needs, in one place.
enum Platform {
    /// The canonical absolute path of `path` (all symbolic links, `.` and `..` resolved), or `nil` when it does not
    /// resolve (missing, dangling link, loop).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether a directory entry named `path` exists, without following a final symbolic link.
    static func entryExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` is (after following links) a regular file.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` is an executable regular file.
    static func isExecutableFile(_ path: String) -> Bool {
        isRegularFile(path) && access(path, X_OK) == 0
    }
}
