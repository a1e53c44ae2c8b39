#if os(Linux)
import CNotificationPlatform
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("ThreadPriority: unsupported operating system")
#endif

/// The OS scheduling priority (nice value) of the calling thread.
///
/// On Linux the nice value belongs to a thread, not to the process: `setpriority(PRIO_PROCESS, 0, n)` changes the
/// calling thread only (`who` 0 is the calling task), and a thread started later inherits its creator's value. A
/// thread may raise its own nice value (lower its priority) without privileges.
///
/// > Note: On macOS the nice value belongs to the process; there the calling thread is moved to the utility
/// > quality-of-service class instead, and ``currentNice`` reports the process's value.
enum ThreadPriority {
    /// The nice value of the calling thread (-20 to 19; 0 unless something lowered it).
    static var currentNice: Int32 {
        #if os(Linux)
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
        getpriority(PRIO_PROCESS, 0)
        #endif
    }

    /// The nice value of the process's main thread: what `nice -n N` gave the process.
    static var processNice: Int32 {
        #if os(Linux)
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        #else
        getpriority(PRIO_PROCESS, 0)
        #endif
    }

    /// Moves the calling thread to the real-time policy `SCHED_FIFO` at `priority` (1–99): it then runs as soon as it
    /// is runnable, ahead of every thread of the normal policy.
    /// - Returns: Whether the system took it (it needs `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` of at least `priority`).
    @discardableResult
    static func makeCurrentThreadRealtime(_ priority: Int32) -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = priority
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    /// Asks the kernel for a time slice of `seconds` for the calling thread (Linux 6.12 and later, EEVDF), keeping its
    /// policy and nice value; no privilege is needed. A short slice (down to 0.1 ms) gives the thread an earlier
    /// virtual deadline than a thread that has been running, so that when it wakes it preempts that thread instead
    /// of waiting for the next scheduler tick; a long one (up to 100 ms) lets a thread run longer before it is
    /// preempted.
    /// - Returns: The slice the thread has afterwards, in seconds; `nil` where the kernel has no such request (before
    ///   6.12, or on macOS), the thread is not of the normal policy (a real-time thread), or the call failed.
    @discardableResult
    static func requestCurrentThreadSlice(_ seconds: Double) -> Double? {
        #if os(Linux)
        let taken = CNPSetCurrentThreadSlice(UInt64(max(0, seconds) * 1e9))
        return taken > 0 ? Double(taken) / 1e9 : nil
        #else
        return nil
        #endif
    }

    /// The calling thread's time slice in seconds: the one it asked for (``requestCurrentThreadSlice(_:)``) or the
    /// kernel's default; `nil` where the kernel reports none (before Linux 6.12, macOS) or the thread is real-time.
    static var currentThreadSlice: Double? {
        #if os(Linux)
        let slice = CNPCurrentThreadSlice()
        return slice > 0 ? Double(slice) / 1e9 : nil
        #else
        return nil
        #endif
    }

    /// Lowers the calling thread's priority to the process's nice value plus `increment` (at most 19).
    /// - Returns: Whether the system took the new value.
    @discardableResult
    static func lowerCurrentThread(by increment: Int32) -> Bool {
        #if os(Linux)
        let target = min(19, max(processNice, currentNice) + increment)
        return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, target) == 0
        #else
        return pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0) == 0
        #endif
    }
}
