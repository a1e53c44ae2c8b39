import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import Synchronization

/// A small h2c client on swift-nio-http2 for the gateway's tests and the endpoint benchmarks (the opt-in
/// `EndpointBenchmark` and `unotify-server-bench`): one connection, any number of concurrent streams, each one request.
///
/// ```swift
/// let client = try await HTTP2TestClient.connect(port: port)
/// let response = try await client.send(path: "/3/device/\(hex)", headers: [("apns-topic", topic)], body: body)
/// await client.close()
/// ```
public final class HTTP2TestClient: Sendable {
    /// A response as the stream received it.
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: Data

        /// Creates a response.
        public init(status: Int, headers: HTTPHeaders, body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    private typealias Stream = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>
    private let goAway: Shared<String?>
    private let firstGoAway: EventLoopFuture<String?>

    private init(
        channel: any Channel, multiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>, goAway: Shared<String?>,
        firstGoAway: EventLoopFuture<String?>
    ) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.goAway = goAway
        self.firstGoAway = firstGoAway
    }

    /// The debug data of the GOAWAY the server sent, if it sent one.
    public var goAwayData: String? { goAway.current }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Waits for the server's first GOAWAY with debug data and returns the data; `nil` when the connection closed
    /// without one.
    public func goAwayReceived() async throws -> String? {
        try await firstGoAway.get()
    }

    /// Waits until the connection is closed (by either side).
    public func closed() async throws {
        try await channel.closeFuture.get()
    }

    /// Records the debug data of a GOAWAY frame.
    private final class GoAwayRecorder: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        let goAway: Shared<String?>
        let first: EventLoopPromise<String?>
        init(_ goAway: Shared<String?>, first: EventLoopPromise<String?>) {
            self.goAway = goAway
            self.first = first
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .goAway(_, _, let opaque) = unwrapInboundIn(data).payload {
                // The first GOAWAY with debug data; NIO may send a plain one as the connection closes.
                let text = opaque.map { String(buffer: $0) } ?? ""
                goAway.update { if ($0 ?? "").isEmpty { $0 = text } }
                if !text.isEmpty { first.succeed(text) }  // a second completion is ignored
            }
            context.fireChannelRead(data)
        }
        func channelInactive(context: ChannelHandlerContext) {
            first.succeed(nil)
            context.fireChannelInactive()
        }
        func handlerRemoved(context: ChannelHandlerContext) {
            first.succeed(nil)  // a connection that never became active
        }
    }

    /// Connects to 127.0.0.1 with prior knowledge.
    public static func connect(port: Int) async throws -> HTTP2TestClient {
        let goAway = Shared<String?>(nil)
        let (channel, multiplexer, firstGoAway) = try await ClientBootstrap(
            group: MultiThreadedEventLoopGroup.singleton
        )
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                let multiplexer = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                    mode: .client, streamInitializer: { stream in stream.eventLoop.makeSucceededVoidFuture() })
                let first = channel.eventLoop.makePromise(of: String?.self)
                try channel.pipeline.syncOperations.addHandler(GoAwayRecorder(goAway, first: first))
                return (channel, multiplexer, first.futureResult)
            }
        }
        return HTTP2TestClient(channel: channel, multiplexer: multiplexer, goAway: goAway, firstGoAway: firstGoAway)
    }

    /// Sends one request on a new stream and reads the whole response.
    public func send(method: HTTPMethod = .POST, path: String, headers: [(String, String)], body: Data) async throws
        -> Response
    {
        let stream: Stream = try await multiplexer.openStream { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .http))
                return try Stream(wrappingChannelSynchronously: channel)
            }
        }
        return try await stream.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http2, method: method, uri: path)
            head.headers.add(name: "host", value: "localhost")
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            try await outbound.write(.head(head))
            if !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            var response = Response(status: 0, headers: [:], body: Data())
            for try await part in inbound {
                switch part {
                case .head(let head):
                    response.status = Int(head.status.code)
                    response.headers = head.headers
                case .body(let buffer): response.body.append(contentsOf: buffer.readableBytesView)
                case .end: return response
                }
            }
            return response
        }
    }

    /// Opens a connection, writes raw bytes, waits a little and closes: garbage for the fuzz test.
    public static func sendRaw(_ bytes: [UInt8], port: Int) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        try await Task.sleep(for: .milliseconds(100))
        try? await channel.close()
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }
}

/// A value shared by concurrent tasks and the channel's handlers.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}
