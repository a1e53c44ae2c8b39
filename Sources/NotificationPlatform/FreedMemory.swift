#if os(Linux)
import CNotificationPlatform
#elseif os(macOS)
import Darwin
#else
#error("FreedMemory: unsupported operating system")
#endif

/// Giving memory a process has freed back to the system.
///
/// glibc keeps freed heap pages for reuse, so a long-running server's resident size stays at its peak after a
/// burst. `unotifyd` returns them after a client that made it buffer (one that never read its replies) has gone, so
/// its memory comes back to its idle level.
public enum FreedMemory {
    /// Returns the free pages at the top and inside the heap to the system (`malloc_trim(0)`); a no-op elsewhere.
    public static func returnToSystem() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }
}
