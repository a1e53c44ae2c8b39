import NIOCore
import NIOHPACK
import NIOHTTP2

/// Gives a request stream the `:authority` pseudo-header from `host` when it has none.
///
/// RFC 9113 allows `host` instead of `:authority`, and APNs accepts it (aioapns sends only `host`), but
/// `HTTP2FramePayloadToHTTP1ServerCodec` requires `:authority`; this sits in front of it.
final class AuthorityFiller: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .headers(var headers) = unwrapInboundIn(data), headers.headers.first(name: ":authority") == nil,
            headers.headers.first(name: ":method") != nil
        else { return context.fireChannelRead(data) }
        let authority = headers.headers.first(name: "host") ?? "localhost"
        var rebuilt = HPACKHeaders()
        for (name, value, indexing) in headers.headers where name.hasPrefix(":") {
            rebuilt.add(name: name, value: value, indexing: indexing)
        }
        rebuilt.add(name: ":authority", value: authority)
        for (name, value, indexing) in headers.headers where !name.hasPrefix(":") {
            rebuilt.add(name: name, value: value, indexing: indexing)
        }
        headers.headers = rebuilt
        context.fireChannelRead(wrapInboundOut(.headers(headers)))
    }
}
