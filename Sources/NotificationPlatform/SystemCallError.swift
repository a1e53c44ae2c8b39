import Foundation

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("NotificationPlatform: unsupported operating system")
#endif

/// A system call of this module failed.
///
/// The monitors and ``PeerCredentials`` talk to the kernel directly; when a call fails they report which one and
/// the `errno` it left, so the daemon can log something an administrator can act on ("inotify_add_watch failed:
/// No such file or directory").
///
/// ```swift
/// do {
///     let credentials = try PeerCredentials.of(socket: descriptor)
/// } catch {
///     logger.error("cannot identify the client: \(error)")  // "getsockopt(SO_PEERCRED) failed: ..."
/// }
/// ```
public struct SystemCallError: Error, Hashable, CustomStringConvertible {
    /// The failing call, as written in C (`timerfd_create`, `getsockopt(SO_PEERCRED)`, ...).
    public let call: String
    /// The `errno` value the call left.
    public let code: Int32

    /// Creates an error for `call` failing with `errno` value `code`.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The error for `call` with the calling thread's current `errno`.
    static func last(_ call: String) -> SystemCallError {
        SystemCallError(call: call, code: errno)
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
