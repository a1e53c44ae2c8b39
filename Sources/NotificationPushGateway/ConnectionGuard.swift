import NIOCore
import NIOHTTP2
import NotificationModel

/// Sent down a connection's pipeline when the endpoint stops.
struct EndpointShutdownEvent: Sendable {}

/// Ends connections as APNs does and changes their settings: on an idle timeout, a fatal error
/// (``ConnectionRequest/end(_:lastStreamID:)``) or when the endpoint shuts down, an HTTP/2 connection gets a GOAWAY
/// whose debug data is the reason's JSON (`{"reason":"IdleTimeout"}`, `{"reason":"BadCertificateEnvironment"}`,
/// `{"reason":"Shutdown"}`), then is closed; an HTTP/1.1 connection is closed. When the connection's first valid
/// provider token arrives (``ConnectionRequest/raiseStreamLimit``), a SETTINGS frame raises
/// `SETTINGS_MAX_CONCURRENT_STREAMS` from 1 to the endpoint's limit.
final class ConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = Any
    typealias OutboundOut = HTTP2Frame

    private let isHTTP2: Bool
    private let streamLimit: Int

    /// - Parameters:
    ///   - isHTTP2: Whether the connection speaks HTTP/2 (else it is only closed).
    ///   - streamLimit: The streams a client may open at once once it posted a valid token.
    init(isHTTP2: Bool, streamLimit: Int = 1_000) {
        self.isHTTP2 = isHTTP2
        self.streamLimit = streamLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    /// An HTTP/2 connection error (a frame that breaks the protocol, a stream beyond the limit): NIO has sent its
    /// GOAWAY; the connection must then be closed (RFC 9113, 5.4.1), or it would linger until the idle timeout.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard isHTTP2 else { return context.fireErrorCaught(error) }
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ConnectionIdleEvent {
            goAway(APNsReason.idleTimeout, lastStreamID: .maxID, context: context, thenClose: true)
        } else if event is EndpointShutdownEvent {
            // The endpoint closes the connection itself once the requests in flight are answered.
            goAway(APNsReason.shutdown, lastStreamID: .maxID, context: context, thenClose: false)
        } else if let request = event as? ConnectionRequest {
            switch request {
            case .raiseStreamLimit(let written):
                guard isHTTP2 else { return written.succeed() }
                let settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: streamLimit)]
                let frame = HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings)))
                context.writeAndFlush(wrapOutboundOut(frame), promise: written)
            case .end(let reason, let lastStreamID):
                goAway(reason, lastStreamID: HTTP2StreamID(lastStreamID), context: context, thenClose: true)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func goAway(
        _ reason: APNsReason, lastStreamID: HTTP2StreamID, context: ChannelHandlerContext, thenClose: Bool
    ) {
        let channel = context.channel
        guard isHTTP2 else { return thenClose ? channel.close(promise: nil) : () }
        var data = channel.allocator.buffer(capacity: 48)
        data.writeString("{\"reason\":\"\(reason.reason)\"}")
        let frame = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: data))
        let written = context.writeAndFlush(wrapOutboundOut(frame))
        guard thenClose else { return }
        written.whenComplete { _ in
            // Let the peer read the GOAWAY, then close.
            channel.eventLoop.scheduleTask(in: .milliseconds(100)) { channel.close(promise: nil) }
        }
    }
}
