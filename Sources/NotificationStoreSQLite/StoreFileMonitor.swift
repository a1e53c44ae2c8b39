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
/// fewer hops"). The thread wakes once per burst of events; watching a store (``init(watching:at:pause:onChange:)``),
/// at most once per pause while that store's own writes go on.
///
/// ```swift
/// let monitor = StoreFileMonitor(watching: store, at: path) { scheduler.storeDidChange() }
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
    public convenience init?(storePath: String, onChange: @escaping @Sendable () -> Void) {
        self.init(
            storePath: storePath, pause: .zero,
            report: {
                onChange()
                return false
            }, afterPause: {})
    }

    /// Starts watching `store`'s files at `storePath` for other processes' commits, and calls `onChange` (on the
    /// monitor's thread, one call at a time) after each: the engine's own commits are not reported.
    ///
    /// Every commit of `store`'s own writes to its files too, and woke this thread, whose check of `data_version`
    /// then cost a transaction (together about 6% of a daemon add's CPU, `perf`). So when the store's own writes
    /// ended since the last report, the check is left to the next own write's transaction
    /// (``SQLiteNotificationStore/checkChangedElsewhereOrDefer(then:)``), and the thread stops watching for `pause`:
    /// the commits made meanwhile wake nobody and cost the kernel no events. When the pause ends, a check no own write
    /// answered runs (``SQLiteNotificationStore/settleDeferredCheck()``), the folder is watched again, and the check is
    /// asked again as if an event had come (it is left to the next own write, with another pause, when one ended
    /// meanwhile). Another process's commit is thus reported at once while the store's own writes are quiet, and
    /// otherwise at the next own write or within two pauses.
    ///
    /// ```swift
    /// let monitor = StoreFileMonitor(watching: store, at: path) { scheduler.storeDidChange() }
    /// ```
    /// - Returns: `nil` when the folder cannot be watched (the engine then only sees its own changes).
    public convenience init?(
        watching store: SQLiteNotificationStore, at storePath: String, pause: Duration = .milliseconds(5),
        onChange: @escaping @Sendable () -> Void
    ) {
        self.init(
            storePath: storePath, pause: pause,
            report: { store.checkChangedElsewhereOrDefer(then: onChange) },
            afterPause: { store.settleDeferredCheck() })
    }

    /// Starts the thread: `report` runs after writes to the store's files and answers whether to read no events for
    /// `pause`, after which `afterPause` runs.
    private init?(
        storePath: String, pause: Duration, report: @escaping @Sendable () -> Bool,
        afterPause: @escaping @Sendable () -> Void
    ) {
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
        let watch = inotify_add_watch(descriptor, folder, mask)
        guard watch >= 0 else {
            close(descriptor)
            close(stopEnds[0])
            close(stopEnds[1])
            return nil
        }
        stopDescriptor = stopEnds[1]
        let name = URL(fileURLWithPath: storePath).lastPathComponent
        let (seconds, attoseconds) = pause.components
        let pauseMilliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
        Thread {
            Self.watch(
                descriptor, folder: folder, mask: mask, watch: watch, stop: stop, name: name,
                pauseMilliseconds: pauseMilliseconds, report: report, afterPause: afterPause)
        }.start()
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
    /// event queued, and calls `report` once when one of them names the store or its log; when `report` answers
    /// `true`, waits `pauseMilliseconds` for the stop alone, then calls `afterPause`.
    ///
    /// The folder is not watched during the pause: a watched file costs the kernel an inotify event at each of its
    /// writes, queued or merged into the last one, even when nobody reads them, and a stream of the store's own
    /// commits (two writes to the `-wal` file per page) spent 7.7% of the daemon's CPU there (`perf`, 64 clients,
    /// session 13). So the watch is removed when the pause begins and added again when it ends; since the events of
    /// the pause are lost, `report` is then called as if one had come: it runs the check for other processes'
    /// commits, or leaves it to the next own write and pauses again (an own write ended since its last call). A
    /// commit made while nothing watched thus is seen as one heard during the pause was: by the next own write's
    /// transaction or by `afterPause` after the next pause.
    private static func watch(
        _ descriptor: Int32, folder: String, mask: UInt32, watch: Int32, stop: Int32, name: String,
        pauseMilliseconds: Int32, report: @Sendable () -> Bool, afterPause: @Sendable () -> Void
    ) {
        var watch = watch
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
            guard relevant, report() else { continue }
            repeat {
                inotify_rm_watch(descriptor, watch)
                var stopOnly = pollfd(fd: stop, events: Int16(POLLIN), revents: 0)
                // EINTR ends the pause early: harmless, the check runs or is deferred again.
                guard poll(&stopOnly, 1, pauseMilliseconds) <= 0 || stopOnly.revents == 0 else { return }
                afterPause()
                watch = inotify_add_watch(descriptor, folder, mask)
                // Not watched again (the user's inotify watches all taken meanwhile, ENOSPC; the folder gone): the
                // check runs once a second until the watch comes back, so other processes' commits are still seen.
                while watch < 0 {
                    let deferred = report()
                    var stopOnly = pollfd(fd: stop, events: Int16(POLLIN), revents: 0)
                    guard poll(&stopOnly, 1, 1_000) <= 0 || stopOnly.revents == 0 else { return }
                    if deferred { afterPause() }
                    watch = inotify_add_watch(descriptor, folder, mask)
                }
                // The events of the writes before the removal, and its IN_IGNORED: `report` answers for them.
                while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
            } while report()
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
