import NIOCore
import NIOHTTP2
import NotificationModel

/// Sent down a connection's pipeline when the endpoint stops.
struct EndpointShutdownEvent: Sendable {}

/// Ends connections as APNs does: on an idle timeout or when the endpoint shuts down, an HTTP/2 connection gets
/// a GOAWAY whose debug data is `{"reason":"IdleTimeout"}` or `{"reason":"Shutdown"}`, then is closed; an
/// HTTP/1.1 connection is closed.
final class ConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = Any
    typealias OutboundOut = HTTP2Frame

    private let isHTTP2: Bool

    init(isHTTP2: Bool) {
        self.isHTTP2 = isHTTP2
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ConnectionIdleEvent {
            goAway(APNsReason.idleTimeout, context: context, thenClose: true)
        } else if event is EndpointShutdownEvent {
            // The endpoint closes the connection itself once the requests in flight are answered.
            goAway(APNsReason.shutdown, context: context, thenClose: false)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func goAway(_ reason: APNsReason, context: ChannelHandlerContext, thenClose: Bool) {
        let channel = context.channel
        guard isHTTP2 else { return thenClose ? channel.close(promise: nil) : () }
        var data = channel.allocator.buffer(capacity: 32)
        data.writeBytes(reason.responseBody)
        let frame = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: data))
        let written = context.writeAndFlush(wrapOutboundOut(frame))
        guard thenClose else { return }
        written.whenComplete { _ in
            // Let the peer read the GOAWAY, then close.
            channel.eventLoop.scheduleTask(in: .milliseconds(100)) { channel.close(promise: nil) }
        }
    }
}
