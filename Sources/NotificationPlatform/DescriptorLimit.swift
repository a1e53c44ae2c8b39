import Foundation

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("DescriptorLimit: unsupported operating system")
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
///
/// A server that holds one descriptor per client raises its soft limit (often 1,024) to the hard limit the
/// administrator set (often 524,288 under systemd) before it accepts connections.
///
/// ```swift
/// let (before, after) = try DescriptorLimit.raiseToHardLimit()   // (1024, 524288)
/// ```
public enum DescriptorLimit {
    /// The current soft and hard limits.
    public static func current() throws -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw SystemCallError.last("getrlimit") }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit; returns the soft limit before and after.
    @discardableResult
    public static func raiseToHardLimit() throws -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw SystemCallError.last("getrlimit") }
        let before = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw SystemCallError.last("setrlimit") }
        return (before, UInt64(limit.rlim_cur))
    }
}
