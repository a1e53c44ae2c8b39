import NIOCore

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("UnixSocket: unsupported operating system")
#endif

/// Connecting a Unix-domain stream socket by hand, so that the client knows its descriptor (``SocketWriter`` sends on
/// a duplicate of it beside NIO, which keeps its own descriptors to itself).
enum UnixSocket {
    /// Connects a non-blocking, close-on-exec stream socket to `path`.
    ///
    /// A daemon whose queue of connections not yet accepted is full answers `EAGAIN`: the connection is tried again
    /// every 10 ms until `timeout`, as NIO's `connectTimeout` would wait.
    ///
    /// - Returns: The connected descriptor, owned by the caller.
    /// - Throws: `IOError` with the system's reason (`ENOENT`, `ECONNREFUSED`, …; `ETIMEDOUT` after `timeout`).
    static func connect(path: String, timeout: Duration) async throws -> CInt {
        #if os(Linux)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw IOError(errnoCode: ENAMETOOLONG, reason: "connect to \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN, ContinuousClock.now < deadline else {
                close(descriptor)
                throw IOError(errnoCode: code == EAGAIN ? ETIMEDOUT : code, reason: "connect to \(path)")
            }
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                close(descriptor)
                throw error
            }
        }
        #elseif os(macOS)
        throw IOError(errnoCode: ENOTSUP, reason: "connect to \(path)")
        #else
        #error("UnixSocket: unsupported operating system")
        #endif
    }

    /// A close-on-exec duplicate of `descriptor`: another descriptor of the same socket.
    ///
    /// - Throws: `IOError` when the process has no descriptor left.
    static func duplicate(_ descriptor: CInt) throws -> CInt {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw IOError(errnoCode: errno, reason: "dup") }
        return duplicate
    }

    /// Closes `descriptor`.
    static func close(_ descriptor: CInt) {
        #if os(Linux)
        _ = Glibc.close(descriptor)
        #elseif os(macOS)
        _ = Darwin.close(descriptor)
        #else
        #error("UnixSocket: unsupported operating system")
        #endif
    }
}
