import Foundation

#if os(Linux)
import CNotificationPlatform
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("PeerCredentials: unsupported operating system")
#endif

/// Who is at the other end of a connected Unix-domain socket: the user, group and process the kernel recorded
/// when the peer connected (or called `socketpair`).
///
/// The per-user daemon listens on a socket in the user's runtime folder; the folder's permissions already keep
/// other users out, and checking the peer's `uid` against the daemon's own closes the gap if they are ever wrong.
/// The values come from `getsockopt(SOL_SOCKET, SO_PEERCRED)`, so the peer cannot forge them; they describe the
/// peer at `connect` time (a process that later changes its user keeps the old values).
///
/// On macOS (where the daemon does not run) ``of(socket:)`` is a stub that always throws `ENOTSUP`.
///
/// ```swift
/// let peer = try PeerCredentials.of(socket: clientDescriptor)
/// guard peer.isCurrentUser else {
///     close(clientDescriptor)  // another user's process: refuse it
///     return
/// }
/// logger.info("client connected", metadata: ["pid": "\(peer.pid)"])
/// ```
public struct PeerCredentials: Sendable, Hashable {
    /// The peer's effective user ID.
    public var uid: uid_t
    /// The peer's effective group ID.
    public var gid: gid_t
    /// The peer's process ID, as seen from this process's PID namespace (0 when the peer is in a namespace this
    /// process cannot see).
    public var pid: pid_t

    /// Creates credentials from known values (for tests and logging).
    public init(uid: uid_t, gid: gid_t, pid: pid_t) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }

    /// Reads the credentials of the peer of the connected Unix-domain socket `descriptor`.
    ///
    /// - Throws: ``SystemCallError`` for `getsockopt(SO_PEERCRED)`: `ENOTSOCK` when `descriptor` is not a socket,
    ///   `EBADF` when it is not open, `ENOTSUP` on macOS.
    public static func of(socket descriptor: Int32) throws(SystemCallError) -> PeerCredentials {
        #if os(Linux)
        var credentials = CNPPeerCredentials()
        guard CNPGetPeerCredentials(descriptor, &credentials) == 0 else {
            throw SystemCallError.last("getsockopt(SO_PEERCRED)")
        }
        return PeerCredentials(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
        #elseif os(macOS)
        // Stub: the daemon is Linux-only (macOS would need getpeereid and LOCAL_PEERPID).
        throw SystemCallError(call: "getsockopt(SO_PEERCRED)", code: ENOTSUP)
        #else
        #error("PeerCredentials: unsupported operating system")
        #endif
    }

    /// Whether the peer runs as this process's real user: the check the daemon makes before serving a client.
    public var isCurrentUser: Bool { uid == getuid() }
}
