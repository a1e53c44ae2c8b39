import Foundation
import NIOCore
import NotificationModel
import Synchronization

/// Asked of a connection's pipeline by ``ConnectionState``: raise the stream limit, or say GOAWAY and close.
enum ConnectionRequest: Sendable {
    /// The first valid provider token arrived: send a SETTINGS frame with the endpoint's stream limit, and complete
    /// the promise once it is written.
    case raiseStreamLimit(EventLoopPromise<Void>)
    /// End the connection: GOAWAY with `{"reason": …}` (HTTP/2), then close.
    case end(APNsReason, lastStreamID: Int)
}

/// What the endpoint knows about one connection, shared by its streams: the provider token in use and since when
/// (`TooManyProviderTokenUpdates`), the team it carries, its client certificate, how many requests each fault rule
/// matched on it, and the way to its pipeline (``ConnectionRequest``). All of it sits in one `Mutex`.
final class ConnectionState: Sendable {
    private struct State {
        var token: (value: String, since: Date)?
        var team: String?
        var tokenSeen = false
        var matched: [String: Int] = [:]
        var lastStreamID = 0
        var ending = false
    }

    /// The client certificate the connection presented, read and checked during the TLS handshake, when the
    /// endpoint asks for certificates (``APNsEndpointConfiguration/TLS/clientCertificateAuthorityPath``).
    let certificate: ClientCertificate?
    /// Whether the connection started with one stream (provider tokens, no certificate): the first valid token
    /// raises the limit.
    let startsWithOneStream: Bool
    /// The connection's name in the request log: its number since the process started, in hexadecimal (a connection's
    /// address would name a later one the same once it is reused).
    let label: String
    private static let opened = Atomic<UInt64>(0)
    private let state = Mutex(State())
    private let pipeline: (@Sendable (ConnectionRequest) -> Void)?
    /// The connection's event loop, where the pipeline's promises are made.
    private let eventLoop: (any EventLoop)?
    private let closeFuture: EventLoopFuture<Void>?
    /// Whether the endpoint keeps the connection (no shutdown fault rule closed it as it was accepted).
    private let admission: Task<Bool, Never>?

    /// - Parameters:
    ///   - startsWithOneStream: Whether the connection's first SETTINGS allowed one stream.
    ///   - channel: The connection, to reach its pipeline and to know when it closes; `nil` in tests of the answerer.
    ///   - admission: Decides, as the connection is accepted, whether the endpoint keeps it.
    ///   - certificate: The client certificate, if the connection presented one.
    init(
        startsWithOneStream: Bool = false, channel: (any Channel)? = nil, admission: Task<Bool, Never>? = nil,
        certificate: ClientCertificate? = nil
    ) {
        self.certificate = certificate
        self.label = String(Self.opened.add(1, ordering: .relaxed).newValue, radix: 16)
        self.admission = admission
        self.startsWithOneStream = startsWithOneStream
        self.closeFuture = channel?.closeFuture
        self.eventLoop = channel?.eventLoop
        if let channel {
            self.pipeline = { @Sendable (request: ConnectionRequest) in
                channel.eventLoop.execute {
                    // A closed connection's pipeline has lost its handlers: nobody would complete the promise.
                    guard channel.isActive else {
                        if case .raiseStreamLimit(let written) = request { written.succeed() }
                        return
                    }
                    channel.pipeline.fireUserInboundEventTriggered(request)
                }
            }
        } else {
            self.pipeline = nil
        }
    }

    /// Takes a verified token: `true` when it is the connection's current one, its first, or the current one is
    /// at least `minimumInterval` old. The connection's first token raises its stream limit: the SETTINGS frame is
    /// written before this returns, so it reaches the client before the answer of the stream that carried the token.
    /// (Sent after that answer, it would reach an idle connection, and AsyncHTTPClient 1.x's pool then schedules a
    /// second idle timer for it: a failed assertion in its debug builds.)
    func accept(_ token: String, now: Date, minimumInterval: TimeInterval?) async -> Bool {
        let (accepted, first) = state.withLock { state -> (Bool, Bool) in
            defer { state.tokenSeen = true }
            let first = !state.tokenSeen
            if let current = state.token, current.value == token { return (true, first) }
            if let minimumInterval, let previous = state.token, now.timeIntervalSince(previous.since) < minimumInterval
            {
                return (false, first)
            }
            state.token = (token, now)
            return (true, first)
        }
        if accepted && first && startsWithOneStream, let eventLoop, let pipeline {
            let written = eventLoop.makePromise(of: Void.self)
            pipeline(.raiseStreamLimit(written))
            try? await written.futureResult.get()
        }
        return accepted
    }

    /// Binds the connection to a team: `true` for its first team and for the same team again, `false` for another
    /// one (one connection carries one team).
    func accept(team: String) -> Bool {
        state.withLock { state in
            guard let current = state.team else {
                state.team = team
                return true
            }
            return current == team
        }
    }

    /// The team the connection carries, once a token or certificate named it.
    var team: String? { state.withLock { $0.team } }

    /// Counts a request a fault rule matched on this connection and returns the count, this one included.
    func countMatch(rule: String) -> Int {
        state.withLock { state in
            state.matched[rule, default: 0] += 1
            return state.matched[rule]!
        }
    }

    /// Notes an HTTP/2 stream the endpoint answers, for the GOAWAY's last stream identifier.
    func noteStream(_ id: Int) {
        state.withLock { $0.lastStreamID = max($0.lastStreamID, id) }
    }

    /// Ends the connection: GOAWAY carrying `reason` (HTTP/2), then close. Only the first call counts.
    func end(_ reason: APNsReason) {
        let lastStreamID = state.withLock { state -> Int? in
            guard !state.ending else { return nil }
            state.ending = true
            return state.lastStreamID
        }
        guard let lastStreamID else { return }
        pipeline?(.end(reason, lastStreamID: lastStreamID))
    }

    /// Whether the endpoint keeps the connection: `false` when a shutdown fault rule refused it as it was accepted
    /// (it is being closed, and none of its requests is answered).
    func admitted() async -> Bool {
        await admission?.value ?? true
    }

    /// Returns when the connection has closed (at once without a connection).
    func closed() async {
        try? await closeFuture?.get()
    }
}
