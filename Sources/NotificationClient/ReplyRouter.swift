import Foundation
import NIOCore
import NotificationWire

/// On the client's event loop: answers the requests waiting for a binary `done` frame (``CompactFrame``, the reply
/// to every add) from the read itself, so the waiting caller resumes without a hand-over to the connection's reader
/// task and its actor. Every other line (JSON replies, events) goes on to the reader. When the channel goes inactive it
/// closes the connection's ``SocketWriter``, whose descriptor keeps the socket open until then.
///
/// ```swift
/// try channel.wrappedForWireProtocol(
///     maximumMessageSize: WireProtocol.maximumReplySize, lineHandler: ReplyRouter(replies, writer: writer))
/// ```
final class ReplyRouter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let replies: ReplyTable
    private let writer: SocketWriter

    init(_ replies: ReplyTable, writer: SocketWriter) {
        self.replies = replies
        self.writer = writer
    }

    func channelInactive(context: ChannelHandlerContext) {
        writer.close()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        guard line.readableBytes > 1, line.getInteger(at: line.readerIndex, as: UInt8.self) == CompactFrame.marker,
            case .reply(let id, let reply)? = line.withUnsafeReadableBytes({
                try? CompactFrame.serverMessage(fromBytes: $0)
            })
        else {
            // A frame that cannot be read goes on too: the reader closes the connection, as for any bad line.
            context.fireChannelRead(data)
            return
        }
        replies.resume(id, with: .success(reply))
    }
}
