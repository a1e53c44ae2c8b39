#if os(Linux)
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
