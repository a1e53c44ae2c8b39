import NIOCore

/// Chooses HTTP/2 or HTTP/1.1 from a connection's first bytes: the HTTP/2 connection preface
/// (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`) means HTTP/2 with prior knowledge (h2c, or TLS without ALPN as aioapns
/// sends it), anything else HTTP/1.1. It configures the pipeline once, replays what it buffered and removes
/// itself; it parses nothing.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The protocol the connection speaks.
    enum Choice { case http2, http1 }

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private let configure: (Choice, ChannelHandlerContext) throws -> Void
    private var buffered: ByteBuffer?
    private var decided = false

    /// - Parameter configure: Adds the protocol's handlers at the end of the pipeline (after this handler).
    init(configure: @escaping (Choice, ChannelHandlerContext) throws -> Void) {
        self.configure = configure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decided else { return context.fireChannelRead(data) }
        var incoming = unwrapInboundIn(data)
        if buffered == nil { buffered = incoming } else { buffered!.writeBuffer(&incoming) }
        let bytes = buffered!.readableBytesView
        let compared = min(bytes.count, Self.preface.count)
        let matches = bytes.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        let choice: Choice
        if !matches {
            choice = .http1
        } else if compared == Self.preface.count {
            choice = .http2
        } else {
            return  // a prefix of the preface so far: wait for more
        }
        decided = true
        do {
            try configure(choice, context)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        let replay = buffered!
        buffered = nil
        context.fireChannelRead(wrapInboundOut(replay))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
