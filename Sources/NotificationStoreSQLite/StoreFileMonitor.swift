import Foundation

#if os(Linux)
import Glibc
#endif

/// Tells when another process wrote to the store, so an engine wakes up for a request `unotify add` stored while
/// it sleeps, without polling: inotify on the store's folder, read by a thread of its own blocked in `poll` (idle, it
/// costs nothing).
///
/// A thread of its own rather than a dispatch source: every commit of the engine's own writes to the store's files
/// too, and a dispatch read source woke libdispatch's manager thread, which woke a worker thread for the handler and
/// was woken again to re-arm the source: several context switches per commit (docs/benchmarks.md, "Daemon add path,
/// fewer hops"). The thread wakes once per burst of events.
///
/// ```swift
/// let monitor = StoreFileMonitor(storePath: path) { store.checkChangedElsewhere { scheduler.storeDidChange() } }
/// ```
public final class StoreFileMonitor: Sendable {
    #if os(Linux)
    /// One end of a socket pair whose other end the thread polls: closing it stops the thread, which then closes its
    /// descriptors.
    private let stopDescriptor: Int32
    #endif

    /// Starts watching the folder of the store at `path`; `onChange` runs on the monitor's thread after writes, one
    /// call at a time.
    /// - Returns: `nil` when the folder cannot be watched (the engine then only sees its own changes).
    public init?(storePath: String, onChange: @escaping @Sendable () -> Void) {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let folder = URL(fileURLWithPath: storePath).deletingLastPathComponent().path
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        var stopEnds: [Int32] = [-1, -1]
        // Close-on-exec from the start (a socket pair made with SOCK_CLOEXEC; Glibc's module has no pipe2): with a
        // pipe, then fcntl, a program the daemon starts on another thread meanwhile (a launch command, an extension)
        // could keep the write end open, and closing it here would no longer stop the thread.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &stopEnds) == 0 else {
            close(descriptor)
            return nil
        }
        let stop = stopEnds[0]
        guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
            close(descriptor)
            close(stopEnds[0])
            close(stopEnds[1])
            return nil
        }
        stopDescriptor = stopEnds[1]
        let name = URL(fileURLWithPath: storePath).lastPathComponent
        Thread { Self.watch(descriptor, stop: stop, name: name, onChange: onChange) }.start()
        #elseif os(macOS)
        return nil  // Embedded processes on macOS see only their own changes; the daemon is Linux-only.
        #else
        #error("StoreFileMonitor: unsupported operating system")
        #endif
    }

    deinit {
        #if os(Linux)
        close(stopDescriptor)
        #endif
    }

    #if os(Linux)
    /// The monitor's thread: waits for inotify events or the stop (the socket pair's other end closed), reads every
    /// event queued, and calls `onChange` once when one of them names the store or its log.
    private static func watch(_ descriptor: Int32, stop: Int32, name: String, onChange: @Sendable () -> Void) {
        defer {
            close(descriptor)
            close(stop)
        }
        // A batch thread does not preempt the thread whose write woke it (the engine's writer, mid-commit, on a
        // machine with few cores): it runs at the next scheduling point instead, a delay of microseconds to
        // milliseconds, which a change by another process can afford. Best effort.
        var parameters = sched_param(sched_priority: 0)
        // SCHED_BATCH in Linux's <sched.h>, which Glibc's module imports only with _GNU_SOURCE.
        let schedBatch: Int32 = 3
        _ = sched_setscheduler(0, schedBatch, &parameters)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                guard errno == EINTR else { return }
                continue
            }
            guard descriptors[1].revents == 0 else { return }
            guard descriptors[0].revents != 0 else { continue }
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                relevant = relevant || mentions(name, in: buffer[0..<count])
            }
            if relevant { onChange() }
        }
    }
    #endif

    #if os(Linux)
    /// Whether any event names the store file or its `-wal` companion.
    private static func mentions(_ name: String, in events: ArraySlice<UInt8>) -> Bool {
        var offset = events.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= events.endIndex {
            let length = events[(offset + 12)..<(offset + 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let nameBytes = events[(offset + header)..<min(events.endIndex, offset + header + length)]
            let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            if eventName == name || eventName == name + "-wal" { return true }
            offset += header + length
        }
        return false
    }
    #endif
}
