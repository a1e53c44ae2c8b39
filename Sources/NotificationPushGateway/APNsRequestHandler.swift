import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NotificationModel
import NotificationPush

/// One request at a time on an HTTP/1.1 connection or an HTTP/2 stream (behind
/// `HTTP2FramePayloadToHTTP1ServerCodec`): collects the head and a bounded body, has the ``RequestAnswerer``
/// answer, and writes the status, the `apns-id` header and the `{"reason": …}` body.
final class APNsRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The largest body kept: one byte more than the largest payload (5120, VoIP) is enough to answer
    /// `PayloadTooLarge`; the rest is read and dropped.
    static let bodyLimit = 5_121

    private let answerer: RequestAnswerer
    private let connection: ConnectionState
    private var head: HTTPRequestHead?
    private var body = Data()

    private let isHTTP2Stream: Bool
    /// The connection's batch, when its streams' requests are answered together (``StreamBatch``).
    private let batch: StreamBatch?

    /// - Parameters:
    ///   - answerer: Answers the requests.
    ///   - connection: The connection the requests arrive on.
    ///   - isHTTP2Stream: Whether the handler serves one HTTP/2 stream (else an HTTP/1.1 connection).
    ///   - batch: The connection's batch that complete requests join; `nil` to answer each request on its own.
    init(answerer: RequestAnswerer, connection: ConnectionState, isHTTP2Stream: Bool, batch: StreamBatch? = nil) {
        self.answerer = answerer
        self.connection = connection
        self.isHTTP2Stream = isHTTP2Stream
        self.batch = batch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            // An HTTP/2 stream: a GOAWAY that ends the connection names the last stream answered.
            if isHTTP2Stream, let id = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) {
                connection.noteStream(Int(id))
            }
            body.removeAll(keepingCapacity: true)
        case .body(var buffer):
            let room = Self.bodyLimit - body.count
            if room > 0, let bytes = buffer.readBytes(length: min(room, buffer.readableBytes)) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, body: body, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, body: Data, context: ChannelHandlerContext) {
        let request = APNsRequest(
            method: head.method.rawValue, path: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) },
            body: body)
        let answerer = answerer, connection = connection
        let keepAlive = head.isKeepAlive
        let version = head.version
        let eventLoop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: eventLoop)
        if let batch {
            batch.add(request) { response in
                let (handler, context) = bound.value
                return handler.write(response, version: version, keepAlive: keepAlive, context: context)
            }
            return
        }
        Task {
            // The request stays in flight until its answer is flushed (or the connection is gone), so a stopping
            // endpoint closes the connection only after the answer went out.
            await answerer.answer(request, connection: connection) { response in
                try? await eventLoop.flatSubmit {
                    let (handler, context) = bound.value
                    return handler.write(response, version: version, keepAlive: keepAlive, context: context)
                }.get()
            }
        }
    }

    /// Writes the answer; the future completes when its last part is flushed.
    private func write(
        _ response: APNsResponse, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) -> EventLoopFuture<Void> {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        let body = response.body
        headers.add(name: "content-length", value: "\(body.count)")
        let http1 = version.major == 1
        if http1 && !keepAlive { headers.add(name: "connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if http1 && !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
        return done
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A malformed request (HTTP/1 parse error, HTTP/2 stream error): NIO answers or resets; close this stream.
        context.close(promise: nil)
    }
}
