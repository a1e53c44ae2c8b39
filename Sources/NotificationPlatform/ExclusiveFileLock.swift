import Foundation
import Synchronization

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("ExclusiveFileLock: unsupported operating system")
#endif

/// An exclusive, advisory lock on a file (`flock(2)`), held until ``release()`` or the process ends, and a line of
/// text in the file saying who holds it.
///
/// The kernel drops the lock when its holder dies, even by `kill -9`, so a stale file never blocks the next holder.
/// `unotifyd` takes one beside its store so that a second daemon on the same store refuses to start and names the
/// first.
///
/// ```swift
/// switch try ExclusiveFileLock.acquire(path: store + "-daemon.lock", owner: "pid \(getpid())") {
/// case .acquired(let lock): defer { lock.release() }  // serve
/// case .heldByOther(let owner): print("already running: \(owner)")
/// }
/// ```
public final class ExclusiveFileLock: Sendable {
    /// What ``acquire(path:owner:)`` found.
    public enum Outcome: Sendable {
        /// The lock is this process's until released.
        case acquired(ExclusiveFileLock)
        /// Another holder has it; the text it wrote (empty when it wrote none yet).
        case heldByOther(owner: String)
    }

    /// The file descriptor of the locked file, -1 once released; closing it releases the lock.
    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// Takes the lock on `path` (created with mode 0600 when missing) without waiting, and writes `owner` into it.
    ///
    /// - Throws: ``SystemCallError`` when the file cannot be opened or locked for another reason than a holder.
    public static func acquire(path: String, owner: String) throws -> Outcome {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SystemCallError.last("open(\(path))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(descriptor) }
            guard code == EWOULDBLOCK else { throw SystemCallError(call: "flock(\(path))", code: code) }
            return .heldByOther(owner: readText(descriptor))
        }
        _ = ftruncate(descriptor, 0)
        let bytes = Array((owner + "\n").utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return .acquired(ExclusiveFileLock(descriptor: descriptor))
    }

    /// Releases the lock (closing the file). The file itself stays: removing it would race with the next holder.
    public func release() {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    deinit { release() }

    private static func readText(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
