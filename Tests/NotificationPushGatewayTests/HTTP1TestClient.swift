import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PushTestSupport

/// A small HTTP/1.1 client on one keep-alive connection, for tests that need a connection opened before something
/// happens (the endpoint stopping) and a request sent on it after.
final class HTTP1TestClient: Sendable {
    private struct Request: Sendable {
        var head: HTTPRequestHead
        var body: ByteBuffer
        var response: EventLoopPromise<HTTP2TestClient.Response>
    }

    /// Writes requests and matches responses to them in order, as HTTP/1.1 answers them.
    private final class Exchange: ChannelDuplexHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundIn = Request
        typealias OutboundOut = HTTPClientRequestPart

        private var waiting: [EventLoopPromise<HTTP2TestClient.Response>] = []
        private var current = HTTP2TestClient.Response(status: 0, headers: [:], body: Data())

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let request = unwrapOutboundIn(data)
            waiting.append(request.response)
            context.write(wrapOutboundOut(.head(request.head)), promise: nil)
            if request.body.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
            }
            context.write(wrapOutboundOut(.end(nil)), promise: promise)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                current.status = Int(head.status.code)
                current.headers = head.headers
            case .body(let buffer): current.body.append(contentsOf: buffer.readableBytesView)
            case .end:
                if !waiting.isEmpty { waiting.removeFirst().succeed(current) }
                current = HTTP2TestClient.Response(status: 0, headers: [:], body: Data())
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            for promise in waiting { promise.fail(ChannelError.eof) }
            waiting.removeAll()
            context.fireChannelInactive()
        }
    }

    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects to 127.0.0.1.
    static func connect(port: Int) async throws -> HTTP1TestClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Exchange())
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return HTTP1TestClient(channel: channel)
    }

    /// Sends a POST and waits for its response.
    func send(path: String, headers: [(String, String)], body: Data) async throws -> HTTP2TestClient.Response {
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "host", value: "localhost")
        head.headers.add(name: "content-length", value: "\(body.count)")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let response = channel.eventLoop.makePromise(of: HTTP2TestClient.Response.self)
        channel.writeAndFlush(Request(head: head, body: ByteBuffer(bytes: body), response: response))
            .whenFailure { response.fail($0) }
        return try await response.futureResult.get()
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close()
    }
}
