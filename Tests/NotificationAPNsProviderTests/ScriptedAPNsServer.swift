import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A bare HTTP/2-over-TLS server that answers requests with a script of answers, in order: for what the APNs
/// endpoint never sends (an `apns-unique-id` header, `retry-after`). Each request's headers are kept.
final class ScriptedAPNsServer: Sendable {
    /// One scripted answer.
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: String = ""
    }

    private let script: Mutex<[Answer]>
    private let received = Mutex<[HTTPHeaders]>([])
    private let channel: any Channel
    let port: Int

    /// Starts on an ephemeral loopback port with a PEM certificate and key, offering `h2` by ALPN.
    init(certificate: String, key: String, script: [Answer]) async throws {
        self.script = Mutex(script)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let box = Box()
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), Responder(server: box),
                            ])
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
        box.server.withLock { $0 = self }
    }

    /// The headers of every request, in order.
    var requests: [HTTPHeaders] { received.withLock { $0 } }

    func stop() async { try? await channel.close() }

    /// The next answer for a request with these headers; a 500 once the script is spent.
    fileprivate func answer(to headers: HTTPHeaders) -> Answer {
        received.withLock { $0.append(headers) }
        return script.withLock { $0.isEmpty ? Answer(status: 500) : $0.removeFirst() }
    }

    /// The server, once it exists (the handlers are made before `init` ends).
    fileprivate final class Box: Sendable {
        let server = Mutex<ScriptedAPNsServer?>(nil)
    }

    /// Answers each stream's request when it ends.
    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private let server: Box
        private var headers = HTTPHeaders()

        init(server: Box) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): headers = head.headers
            case .body: break
            case .end:
                guard let answer = server.server.withLock({ $0 })?.answer(to: headers) else { return }
                var responseHeaders = HTTPHeaders(answer.headers)
                responseHeaders.add(name: "apns-id", value: headers.first(name: "apns-id") ?? "")
                let head = HTTPResponseHead(
                    version: .http2, status: HTTPResponseStatus(statusCode: answer.status), headers: responseHeaders)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if !answer.body.isEmpty {
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
