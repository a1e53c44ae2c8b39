import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NotificationEngine
import NotificationPush
import Synchronization
import X509

/// The APNs provider API on a local address: `POST /3/device/<token>` over HTTP/2 (h2c with prior knowledge, or
/// TLS with or without ALPN) and HTTP/1.1, answered by a ``PushGateway`` exactly as APNs answers.
///
/// One NIO server: per connection, TLS when configured, then the first bytes choose HTTP/2 (the connection
/// preface) or HTTP/1.1; every request goes through the same ``RequestAnswerer`` (shutdown, load, provider token,
/// per-token rate) to the gateway.
///
/// ```swift
/// let endpoint = APNsEndpoint(
///     configuration: APNsEndpointConfiguration(address: .default),
///     gateway: PushGateway(scheduler: scheduler, deliversImmediately: false))
/// try await endpoint.start()
/// // curl --http2-prior-knowledge -X POST http://127.0.0.1:2197/3/device/<token> -d '{"aps":{"alert":"Hi"}}'
/// await endpoint.stop()
/// ```
public actor APNsEndpoint {
    /// Where the endpoint is in its life.
    public enum State: Sendable, Equatable {
        /// Not started.
        case idle
        /// Listening on the port.
        case running(port: Int)
        /// Stopped; it cannot start again.
        case stopped
    }

    /// How it runs.
    public nonisolated let configuration: APNsEndpointConfiguration
    /// Where it is in its life.
    public private(set) var state = State.idle
    nonisolated let answerer: RequestAnswerer
    private let logger: Logger
    private let connections = ConnectionRegistry()
    private var server: (any Channel)?

    /// Creates an endpoint over a push gateway.
    ///
    /// - Parameters:
    ///   - configuration: Address, TLS, provider tokens, limits.
    ///   - gateway: Answers the requests that pass the endpoint's own checks.
    ///   - logger: Where it logs.
    public init(
        configuration: APNsEndpointConfiguration, gateway: PushGateway,
        logger: Logger = Logger(label: "OpenUserNotifications.apns")
    ) {
        self.init(
            configuration: configuration, logger: logger, responder: { await gateway.handle($0) },
            batchResponder: { await gateway.handle(batch: $0) })
    }

    /// Creates an endpoint with any responder behind the same transport (benchmarks compare a trivial one).
    ///
    /// - Parameters:
    ///   - configuration: Address, TLS, provider tokens, limits.
    ///   - logger: Where it logs.
    ///   - responder: Answers requests that pass the endpoint's own checks.
    ///   - batchResponder: Answers the requests of one read of an HTTP/2 connection's streams that pass the checks,
    ///     one answer per request in order (``PushGateway/handle(batch:)``), or `nil` for a request `responder` is to
    ///     answer on its own; `nil` to answer each with `responder`.
    public init(
        configuration: APNsEndpointConfiguration, logger: Logger = Logger(label: "OpenUserNotifications.apns"),
        responder: @escaping @Sendable (APNsRequest) async -> APNsResponse,
        batchResponder: (@Sendable ([APNsRequest]) async -> [APNsResponse?])? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.answerer = RequestAnswerer(
            responder: responder, batchResponder: batchResponder, verifier: configuration.providerTokens,
            configuration: configuration)
    }

    /// The bound port while running (the chosen one when the configuration asked for port 0).
    public var port: Int? {
        if case .running(let port) = state { return port }
        return nil
    }

    /// Binds the address and starts answering.
    ///
    /// - Returns: The bound port.
    /// - Throws: ``APNsEndpointError`` for a non-loopback address without ``APNsEndpointConfiguration/allowsRemote``
    ///   or unreadable TLS files; NIO's errors when the address cannot be bound.
    @discardableResult
    public func start() async throws -> Int {
        guard state == .idle else { throw APNsEndpointError.state("the endpoint was already started") }
        let address = configuration.address
        guard address.isLoopback || configuration.allowsRemote else { throw APNsEndpointError.notLoopback(address) }
        let tls = try configuration.tls.map(Self.makeTLSContext)
        let answerer = answerer
        let connections = connections
        let clock = configuration.clock
        let idleWatch = IdleWatch(timeout: configuration.idleTimeout, clock: clock)
        let streams = Streams(
            limit: configuration.maximumConcurrentStreams,
            oneUntilToken: configuration.providerTokens != nil && configuration.oneStreamUntilProviderToken)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    connections.add(channel)
                    // A shutdown fault rule refuses new connections: closed as soon as the rules are read.
                    let admission = Task {
                        let refused = await answerer.faults.refusesConnections()
                        if refused { channel.close(promise: nil) }
                        return !refused
                    }
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(IdleTimeoutHandler(watch: idleWatch))
                    let certificate = CertificateSlot()
                    if let tls {
                        if let roots = tls.clientRoots {
                            // The presented chain is read and checked here, and the handshake always goes on: a bad
                            // certificate is answered 403 BadCertificate on the connection, so the reason reaches the
                            // provider (APNs refuses a certificate Apple did not issue during the handshake).
                            try sync.addHandler(
                                NIOSSLServerHandler(context: tls.context) { chain, promise in
                                    let der = chain.map { (try? $0.toDERBytes()) ?? [] }
                                    let now = clock.now
                                    Task {
                                        certificate.value = await ClientCertificate.read(
                                            chain: der, roots: roots, now: now)
                                        promise.succeed(.certificateVerified)
                                    }
                                })
                        } else {
                            try sync.addHandler(NIOSSLServerHandler(context: tls.context))
                        }
                    }
                    try sync.addHandler(
                        ProtocolSniffer { choice, context in
                            try Self.configure(
                                choice, channel: context.channel, answerer: answerer, streams: streams,
                                admission: admission, certificate: certificate.value)
                        })
                }
            }
        let channel = try await bootstrap.bind(host: address.host, port: address.port).get()
        configuration.requestLog?.start()
        server = channel
        let port = channel.localAddress?.port ?? address.port
        state = .running(port: port)
        logger.info(
            "APNs endpoint listening",
            metadata: [
                "address": "\(APNsEndpointAddress(host: address.host, port: port))",
                "environment": "\(configuration.environment.rawValue)",
                "tls": "\(configuration.tls != nil)", "provider-tokens": "\(configuration.providerTokens != nil)",
            ])
        return port
    }

    /// Stops: new requests answer 503 `Shutdown`, HTTP/2 connections get a GOAWAY with `{"reason":"Shutdown"}`,
    /// requests in flight finish (for up to `grace` seconds on the configuration's clock), then every connection
    /// closes.
    ///
    /// - Parameter grace: How long requests in flight may take to finish before their connections are closed.
    public func stop(grace: TimeInterval = 2) async {
        guard case .running = state else {
            state = .stopped
            return
        }
        state = .stopped
        let clock = configuration.clock
        let deadline = clock.now.addingTimeInterval(grace)
        answerer.startDraining()
        try? await server?.close()
        server = nil
        for channel in connections.all { channel.pipeline.fireUserInboundEventTriggered(EndpointShutdownEvent()) }
        // A task of its own: the caller may be cancelled already, and the wait must still wait.
        await Task { [answerer] in
            await FirstAnswer.race(
                { await answerer.waitUntilDrained() }, orElse: { try? await clock.sleep(until: deadline) })
        }.value
        for channel in connections.all { try? await channel.close() }
        await configuration.requestLog?.stop()
        logger.info("APNs endpoint stopped")
    }

    /// Serves until the calling task is cancelled, then stops.
    public func run() async throws {
        if state == .idle { try await start() }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
        await stop()
    }

    /// How many streams a connection may open at once: with provider tokens, one until it posted a valid token
    /// (then ``limit``), as APNs does; otherwise ``limit`` from the start.
    struct Streams: Sendable {
        var limit: Int
        var oneUntilToken: Bool

        /// The HTTP/2 settings a new connection starts with.
        func initialSettings(oneStream: Bool) -> HTTP2Settings {
            var settings = nioDefaultSettings
            settings.removeAll { $0.parameter == .maxConcurrentStreams }
            settings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: oneStream ? 1 : limit))
            return settings
        }
    }

    /// Adds the protocol's handlers after the sniffer.
    private static func configure(
        _ choice: ProtocolSniffer.Choice, channel: any Channel, answerer: RequestAnswerer, streams: Streams,
        admission: Task<Bool, Never>, certificate: ClientCertificate?
    ) throws {
        let sync = channel.pipeline.syncOperations
        switch choice {
        case .http1:
            let connection = ConnectionState(channel: channel, admission: admission, certificate: certificate)
            try sync.addHandler(HTTPResponseEncoder())
            try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try sync.addHandler(HTTPServerPipelineHandler())
            try sync.addHandler(HTTPServerProtocolErrorHandler())
            try sync.addHandler(ConnectionGuard(isHTTP2: false))
            try sync.addHandler(APNsRequestHandler(answerer: answerer, connection: connection, isHTTP2Stream: false))
        case .http2:
            // A certificate authenticates the connection: it needs no token to open more streams.
            let oneStream = streams.oneUntilToken && certificate == nil
            let connection = ConnectionState(
                startsWithOneStream: oneStream, channel: channel, admission: admission, certificate: certificate)
            // The streams' requests of one pass of the loop are answered together, when the responder takes batches.
            let batch = answerer.batchResponder.map { _ in
                NIOLoopBound(
                    StreamBatch(answerer: answerer, connection: connection, eventLoop: channel.eventLoop),
                    eventLoop: channel.eventLoop)
            }
            var configuration = NIOHTTP2Handler.ConnectionConfiguration()
            configuration.initialSettings = streams.initialSettings(oneStream: oneStream)
            _ = try sync.configureHTTP2Pipeline(
                mode: .server, connectionConfiguration: configuration, streamConfiguration: .init()
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandlers([
                        AuthorityFiller(), HTTP2FramePayloadToHTTP1ServerCodec(),
                        APNsRequestHandler(
                            answerer: answerer, connection: connection, isHTTP2Stream: true, batch: batch?.value),
                    ])
                }
            }
            try sync.addHandler(ConnectionGuard(isHTTP2: true, streamLimit: streams.limit))
        }
    }

    /// The TLS context and, when the endpoint asks for client certificates, the authorities they must chain to.
    struct ServerTLS: Sendable {
        var context: NIOSSLContext
        var clientRoots: [Certificate]?
    }

    /// The client certificate a connection presented, written by the TLS handshake's verification and read when
    /// the connection's first bytes arrive (after the handshake). A `Mutex` guards it.
    final class CertificateSlot: Sendable {
        private let slot = Mutex<ClientCertificate?>(nil)
        var value: ClientCertificate? {
            get { slot.withLock { $0 } }
            set { slot.withLock { $0 = newValue } }
        }
    }

    /// A server TLS context from PEM files, offering `h2` then `http/1.1` by ALPN; a client that offers none is
    /// served HTTP/2 when it sends the preface. With a client certificate authority, it asks clients for a
    /// certificate (optional: token-based providers send none).
    static func makeTLSContext(_ tls: APNsEndpointConfiguration.TLS) throws -> ServerTLS {
        let chain: [NIOSSLCertificateSource]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tls.certificatePath).map { .certificate($0) }
            key = try NIOSSLPrivateKey(file: tls.keyPath, format: .pem)
        } catch {
            throw APNsEndpointError.tls("cannot load \(tls.certificatePath) / \(tls.keyPath): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        var clientRoots: [Certificate]?
        if let path = tls.clientCertificateAuthorityPath {
            let authorities: [NIOSSLCertificate]
            do {
                authorities = try NIOSSLCertificate.fromPEMFile(path)
                clientRoots = try authorities.map { try Certificate(derEncoded: try $0.toDERBytes()) }
            } catch {
                throw APNsEndpointError.tls("cannot read the client certificate authority \(path): \(error)")
            }
            guard !authorities.isEmpty else {
                throw APNsEndpointError.tls("\(path) holds no PEM certificate (the client certificate authority)")
            }
            configuration.certificateVerification = .optionalVerification
            configuration.trustRoots = .certificates(authorities)
        }
        do {
            return ServerTLS(context: try NIOSSLContext(configuration: configuration), clientRoots: clientRoots)
        } catch {
            throw APNsEndpointError.tls("cannot use \(tls.certificatePath) / \(tls.keyPath): \(error)")
        }
    }
}
