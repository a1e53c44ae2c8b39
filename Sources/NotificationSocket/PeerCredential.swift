import NIOCore

#if os(Linux)
import Glibc
#endif

/// The process, user and group on the other end of a Unix-domain socket (`SO_PEERCRED`), laid out as Linux's
/// `struct ucred`.
public struct PeerCredential: Sendable, Hashable {
    public var processID: Int32
    public var userID: UInt32
    public var groupID: UInt32
}

extension Channel {
    /// Reads the peer's credentials of a connected Unix-domain socket channel.
    public func peerCredential() -> EventLoopFuture<PeerCredential> {
        #if os(Linux)
        guard let provider = self as? any SocketOptionProvider else {
            return eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        #elseif os(macOS)
        return eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        #else
        #error("peerCredential: unsupported operating system")
        #endif
    }
}
