import Foundation
import NIOCore
import NotificationEngine
import Synchronization

/// Sent down a connection's pipeline when it has read nothing for the endpoint's idle timeout.
struct ConnectionIdleEvent: Sendable {}

/// Notes a connection's reads for the endpoint's ``IdleWatch``: when nothing arrived for the idle timeout, the watch
/// sends a ``ConnectionIdleEvent`` down the pipeline, and ``ConnectionGuard`` says GOAWAY `{"reason":"IdleTimeout"}`
/// and closes.
final class IdleTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let watch: IdleWatch
    private let lastRead: IdleWatch.LastRead

    /// - Parameter watch: The endpoint's watch.
    init(watch: IdleWatch) {
        self.watch = watch
        self.lastRead = IdleWatch.LastRead(watch.clock.now)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        watch.add(context.channel, lastRead: lastRead)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        watch.remove(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead.value = watch.clock.now
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.remove(context.channel)
        context.fireChannelInactive()
    }

    /// A connection idle before it chose HTTP/2 or HTTP/1.1 (nothing sent, or a TLS handshake never finished) has
    /// no ``ConnectionGuard`` to say GOAWAY: it is closed here.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ConnectionIdleEvent,
            (try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)) == nil
        {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
