import Foundation
import NIOCore
import Synchronization

#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("SocketWriter: unsupported operating system")
#endif

/// Writes one connection's frames to `unotifyd`: with `send(2)` from the calling thread when nothing of the connection
/// waits in the channel, through the channel otherwise.
///
/// NIO writes only from the channel's event loop, so a frame written through the channel from another thread (the
/// caller's pool thread) wakes the loop to write it: one of the four thread wake-ups of an add's round trip (session
/// 12's timeline). Sending from the caller's thread spares it.
///
/// Frames never interleave: every frame of the connection goes through its one writer, under one lock. A frame is sent
/// directly only when every write handed to the channel has finished; the rest of a frame the socket did not take whole
/// (its buffer full, `EAGAIN`) goes to the channel, and so does every later frame until the channel has written them
/// all, in the order they came. A send that fails otherwise (the daemon gone) closes the channel, whose reader then
/// fails the waiting requests as for any lost connection.
///
/// The writer sends on its own duplicate of the channel's descriptor, so a descriptor number the channel closed (and the
/// system gave to another file) is never written to; it closes the duplicate when the channel goes inactive
/// (``close()``, from the ``ReplyRouter``), after which frames are dropped, as a closed channel drops them.
///
/// ```swift
/// let writer = SocketWriter(descriptor: duplicate)
/// // … in the channel's initializer: writer.attach(channel) …
/// writer.write(frame)  // from any thread
/// ```
///
/// > Note: On macOS the writer has no descriptor and writes through the channel only.
final class SocketWriter: Sendable {
    private struct State {
        /// The writer's own descriptor of the socket; `nil` when closed, or when it writes through the channel only.
        var descriptor: CInt?
        /// The connection's channel, once attached.
        var channel: (any Channel)?
        var closed = false
    }

    private let state: Mutex<State>
    /// Writes handed to the channel and not finished yet (written to the socket, or failed with the channel).
    private let inChannel = Atomic<Int>(0)
    /// Frames (or their rest) handed to the channel so far.
    private let handedToChannel = Atomic<Int>(0)

    /// How many frames (or their rest) went through the channel rather than straight to the socket.
    var framesThroughChannel: Int { handedToChannel.load(ordering: .relaxed) }

    /// - Parameter descriptor: A duplicate of the socket's descriptor, owned by the writer from now on (closed by
    ///   ``close()``, also when the channel never comes); `nil` to write through the channel only.
    init(descriptor: CInt?) {
        self.state = Mutex(State(descriptor: descriptor))
    }

    /// Attaches the connection's channel, which reads, and writes what the socket does not take at once; frames
    /// written before it is attached are dropped.
    func attach(_ channel: any Channel) {
        state.withLock { $0.channel = channel }
    }

    /// Writes `frame` after every frame written before it; from any thread, never blocking.
    func write(_ frame: Data) {
        let failed: (any Channel)? = state.withLock { state in
            guard !state.closed, let channel = state.channel else { return nil }
            var sent = 0
            if let descriptor = state.descriptor, inChannel.load(ordering: .acquiring) == 0 {
                guard let count = Self.send(frame, on: descriptor) else { return channel }
                sent = count
                if sent == frame.count { return nil }
            }
            // Handed over in this order under the lock: the loop runs its tasks in the order they were queued.
            inChannel.add(1, ordering: .relaxed)
            handedToChannel.add(1, ordering: .relaxed)
            let rest = ByteBuffer(bytes: frame.dropFirst(sent))
            channel.eventLoop.execute {
                channel.writeAndFlush(rest).whenComplete { _ in
                    self.inChannel.subtract(1, ordering: .releasing)
                }
            }
            return nil
        }
        // Outside the lock: on the loop's thread the close runs at once, and its `channelInactive` closes the writer.
        failed?.close(promise: nil)
    }

    /// Closes the writer's descriptor; later frames are dropped.
    func close() {
        state.withLock { state in
            state.closed = true
            if let descriptor = state.descriptor { UnixSocket.close(descriptor) }
            state.descriptor = nil
            state.channel = nil
        }
    }

    /// Sends what the socket takes of `frame` without blocking.
    ///
    /// - Returns: The bytes sent (fewer than the frame's when the socket's buffer is full), or `nil` when the socket
    ///   failed (the peer closed it).
    private static func send(_ frame: Data, on descriptor: CInt) -> Int? {
        #if os(Linux)
        frame.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return 0 }
            var sent = 0
            while sent < bytes.count {
                let result = Glibc.send(
                    descriptor, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                if result > 0 {
                    sent += result
                } else if result < 0, errno == EINTR {
                    continue
                } else if result < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    break
                } else {
                    return nil
                }
            }
            return sent
        }
        #elseif os(macOS)
        0
        #else
        #error("SocketWriter: unsupported operating system")
        #endif
    }
}
