import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on 127.0.0.1 for the download tests (push and desktop): `GET /<name>` answers the file of that name in
/// Tests/Fixtures/Images; `GET /slow/<name>` never answers (a server too slow for the extension's budget).
public final class ImageServer: Sendable {
    /// Tests/Fixtures/Images.
    public static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Images")

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The server's port.
    public let port: Int

    public init() async throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(Handler()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// The URL of an image by name.
    public func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    public func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {  // used on its channel's loop only
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            if head.uri.hasPrefix("/slow/") { return }  // never answers
            let file = ImageServer.images.appendingPathComponent(String(head.uri.dropFirst()))
            let body = FileManager.default.contents(atPath: file.path)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "image/png")
            headers.add(name: "Content-Length", value: String(body?.count ?? 0))
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: body == nil ? .notFound : .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body ?? Data())))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
