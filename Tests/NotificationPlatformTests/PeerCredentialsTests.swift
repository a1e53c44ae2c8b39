import Foundation
import NotificationPlatform
import Testing

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("PeerCredentialsTests: unsupported operating system")
#endif

#if os(Linux)
@Suite("Peer credentials")
struct PeerCredentialsTests {
    @Test("both ends of a socketpair see this process's uid, gid and pid")
    func socketPair() throws {
        var descriptors: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        defer { descriptors.forEach { close($0) } }

        for descriptor in descriptors {
            let peer = try PeerCredentials.of(socket: descriptor)
            #expect(peer == PeerCredentials(uid: getuid(), gid: getgid(), pid: getpid()))
            #expect(peer.isCurrentUser)
        }
    }

    @Test("another user is not the current user")
    func otherUser() {
        #expect(!PeerCredentials(uid: getuid() &+ 1, gid: getgid(), pid: 1).isCurrentUser)
    }

    @Test("a pipe is not a socket")
    func pipeIsNotASocket() throws {
        var descriptors: [Int32] = [-1, -1]
        try #require(pipe(&descriptors) == 0)
        defer { descriptors.forEach { close($0) } }

        #expect(throws: SystemCallError(call: "getsockopt(SO_PEERCRED)", code: ENOTSOCK)) {
            try PeerCredentials.of(socket: descriptors[0])
        }
    }

    @Test("an invalid descriptor fails with EBADF")
    func invalidDescriptor() {
        #expect(throws: SystemCallError(call: "getsockopt(SO_PEERCRED)", code: EBADF)) {
            try PeerCredentials.of(socket: -1)
        }
    }
}
#endif
