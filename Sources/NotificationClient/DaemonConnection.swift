import Foundation
import NIOCore
import NIOPosix
import NotificationEngine
import NotificationModel
import NotificationSocket
import NotificationWire

/// One app's connection to `unotifyd`: requests with replies, and the daemon's events for the app's running
/// process: `willPresent`, responses, background pushes, and pushes for its in-process service extension.
///
/// The connection opens on first use and again after it was lost (the daemon restarted): requests in flight when it
/// drops fail with `unavailable`, later ones reconnect. Whatever the app attached (itself, a receiver of background
/// pushes, a service extension) is attached again on reconnection, and the connection keeps trying to come back
/// while anything is attached, so the app keeps receiving events.
public actor DaemonConnection {
    private enum State {
        case disconnected
        case connecting(Task<Link, any Error>)
        case connected(Link)
    }

    /// A live connection: where frames go.
    private struct Link {
        /// The writer task's queue: the hello and the answers to the daemon's events.
        var outgoing: AsyncStream<ClientMessage>.Continuation
        /// Where every frame of the connection goes, requests straight from their callers, which spares each request
        /// a hand-over to the writer task and to the event loop (requests need no back-pressure here: each waits for
        /// its reply, and the daemon reads at most a few ahead).
        var writer: SocketWriter
        var generation: UInt64
        /// Whether the daemon agreed on protocol version 2: adds go as ``CompactFrame``s where they fit.
        var compact: Bool
    }

    public nonisolated let socketPath: String
    public nonisolated let appID: String
    private var state = State.disconnected
    private var generation: UInt64 = 0
    /// The requests waiting for their replies and the live socket, shared with the event loop's ``ReplyRouter`` and
    /// with adds sent without the actor. A task fails the requests whose reply did not come in time: one for all of
    /// them, not one per request; started by a request, it ends at the first deadline it reaches with nothing waiting,
    /// so it outlives the last request by at most one reply timeout.
    private nonisolated let replies = ReplyTable()
    /// The new connection's wait for the daemon's welcome, which names the connection's protocol version.
    private var welcome: CheckedContinuation<Int, any Error>?
    private var foreground: (any ForegroundApp)?
    private var remoteReceiver: (any RemoteNotificationReceiver)?
    private var extensionHost: (any ServiceExtensionHost)?
    /// The service extension runs the daemon waits for, by event.
    private var extensionRuns: [UInt64: any ServiceExtensionRun] = [:]
    /// Events whose time ran out before their extension had started.
    private var expiredBeforeStart: Set<UInt64> = []
    private var reconnecting: Task<Void, Never>?
    /// The app's in-process content extension and the categories it draws.
    private var contentExtension: (answering: ContentExtensionAnswering, categories: [String], allowsNetwork: Bool)?

    /// How long a request waits for its reply, and a new connection for the daemon's welcome, before failing with
    /// `unavailable`: a daemon that is stuck is reported, not waited on forever.
    public nonisolated let replyTimeout: Duration

    public init(socketPath: String, appID: String, replyTimeout: Duration = .seconds(30)) {
        self.socketPath = socketPath
        self.appID = appID
        self.replyTimeout = replyTimeout
    }

    /// Sends a request and waits for its reply.
    ///
    /// An add that fits a binary frame goes straight to the socket while connected, and its reply resumes the caller
    /// from the event loop: no stop on the connection's actor either way.
    ///
    /// - Throws: ``EngineError`` with the daemon's error code, or `unavailable` when the daemon cannot be reached.
    public nonisolated func request(_ request: WireRequest) async throws -> WireReply {
        if case .add(let spec) = request, let reply = try await compactAdd(spec) { return reply }
        return try await requestThroughActor(request)
    }

    /// Sends an add as a binary frame on the live connection without the actor; `nil` when there is no live
    /// connection of protocol version 2, or the spec does not fit a frame (the actor then sends it).
    private nonisolated func compactAdd(_ spec: RequestSpec) async throws -> WireReply? {
        guard replies.link?.compact == true else { return nil }
        let id = replies.nextID()
        guard let frame = CompactFrame.add(id: id, spec) else { return nil }
        let deadline = ContinuousClock.now.advanced(by: replyTimeout)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                switch replies.register(id, continuation, deadline: deadline, requiringLink: true) {
                case .notConnected: continuation.resume(throwing: NotConnected())
                case .registered(let writer, let startWatch):
                    if startWatch { Task { await self.watchReplies() } }
                    writer?.write(frame)
                }
            }
        } catch is NotConnected {
            return nil
        } catch let failure as WireFailure {
            throw EngineError(EngineError.Code(name: failure.code) ?? .invalidArgument, failure.message)
        }
    }

    /// The connection was lost between the check and the registration: the actor connects again.
    private struct NotConnected: Error {}

    private func requestThroughActor(_ request: WireRequest) async throws -> WireReply {
        let link = try await connected()
        let id = replies.nextID()
        // Encoded here, so a request the wire cannot carry fails alone, at once, instead of ending the connection.
        let frame: Data
        do {
            if link.compact, case .add(let spec) = request, let compact = CompactFrame.add(id: id, spec) {
                frame = compact
            } else {
                frame = try WireProtocol.encode(ClientMessage.request(id: id, request))
            }
        } catch {
            throw EngineError(.invalidArgument, "the request cannot be sent to unotifyd: \(error)")
        }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                wait(id, continuation)
                link.writer.write(frame)
            }
        } catch let failure as WireFailure {
            throw EngineError(EngineError.Code(name: failure.code) ?? .invalidArgument, failure.message)
        }
    }

    /// Registers the app's running process: the daemon will ask it before presenting and hand it responses.
    public func attach(_ app: any ForegroundApp) async throws {
        foreground = app
        _ = try await request(.attach)
    }

    public func detach() async throws {
        foreground = nil
        if !hasAttachments { reconnecting?.cancel() }
        _ = try await request(.detach)
    }

    /// Registers the app's receiver of background pushes: the daemon hands it pushes with `content-available`.
    public func attachRemoteReceiver(_ receiver: any RemoteNotificationReceiver) async throws {
        remoteReceiver = receiver
        _ = try await request(.attachRemoteReceiver)
    }

    public func detachRemoteReceiver() async throws {
        remoteReceiver = nil
        if !hasAttachments { reconnecting?.cancel() }
        _ = try await request(.detachRemoteReceiver)
    }

    /// Registers the app's in-process service extension: the daemon hands it pushes with `mutable-content`.
    public func attachServiceExtension(_ host: any ServiceExtensionHost) async throws {
        extensionHost = host
        _ = try await request(.attachServiceExtension)
    }

    public func detachServiceExtension() async throws {
        extensionHost = nil
        if !hasAttachments { reconnecting?.cancel() }
        _ = try await request(.detachServiceExtension)
    }

    /// Registers the app's in-process content extension: the daemon's web center asks it to draw the notifications
    /// of `categories` and to answer the actions pressed below them.
    public func attachContentExtension(
        _ answering: @escaping ContentExtensionAnswering, categories: [String], allowsNetwork: Bool
    ) async throws {
        contentExtension = (answering, categories, allowsNetwork)
        _ = try await request(.attachContentExtension(categories: categories, allowsNetwork: allowsNetwork))
    }

    public func detachContentExtension() async throws {
        contentExtension = nil
        if !hasAttachments { reconnecting?.cancel() }
        _ = try await request(.detachContentExtension)
    }

    /// Whether anything of the app's process is attached, so the connection must come back when lost.
    private var hasAttachments: Bool {
        foreground != nil || remoteReceiver != nil || extensionHost != nil || contentExtension != nil
    }

    /// Closes the connection (the daemon then treats the app as not running).
    public func close() {
        foreground = nil
        remoteReceiver = nil
        extensionHost = nil
        contentExtension = nil
        reconnecting?.cancel()
        // The writer task sends what is queued, then closes the channel, whose router closes the socket writer.
        if case .connected(let link) = state { link.outgoing.finish() }
        state = .disconnected
        replies.disconnect()
    }

    // MARK: - Connecting

    private func connected() async throws -> Link {
        switch state {
        case .connected(let link): return link
        case .connecting(let task): return try await task.value
        case .disconnected:
            generation += 1
            let generation = generation
            let task = Task { try await self.open(generation: generation) }
            state = .connecting(task)
            do {
                let link = try await task.value
                state = .connected(link)
                replies.connect(
                    ReplyTable.Link(writer: link.writer, generation: link.generation, compact: link.compact))
                if foreground != nil { try? await sendAttach(.attach, link) }
                if remoteReceiver != nil { try? await sendAttach(.attachRemoteReceiver, link) }
                if extensionHost != nil { try? await sendAttach(.attachServiceExtension, link) }
                if let contentExtension {
                    try? await sendAttach(
                        .attachContentExtension(
                            categories: contentExtension.categories, allowsNetwork: contentExtension.allowsNetwork),
                        link)
                }
                return link
            } catch {
                state = .disconnected
                throw EngineError(.unavailable, "the notification daemon at \(socketPath) is not reachable: \(error)")
            }
        }
    }

    /// Re-attaches the app (or its receiver, or its extension) on a new connection.
    private func sendAttach(_ request: WireRequest, _ link: Link) async throws {
        let id = replies.nextID()
        let frame = try WireProtocol.encode(ClientMessage.request(id: id, request))
        _ = try await withCheckedThrowingContinuation { continuation in
            wait(id, continuation)
            link.writer.write(frame)
        }
    }

    /// Connects, says hello, and starts the reader and writer.
    private func open(generation: UInt64) async throws -> Link {
        let (channel, writer) = try await Self.connect(socketPath, replies: replies)
        let (outgoing, sink) = AsyncStream<ClientMessage>.makeStream()
        Task { await self.pump(channel, writer: writer, outgoing: outgoing, generation: generation) }
        let timer = Task { [replyTimeout] in
            try await Task.sleep(for: replyTimeout)
            self.welcomeTimedOut(generation: generation)
        }
        defer { timer.cancel() }
        let version: Int
        do {
            // Versions 1 to 2: a daemon of version 1 ignores the newest and welcomes with 1 (JSON lines only).
            version = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                welcome = continuation
                sink.yield(.hello(Hello(appID: appID, processID: ProcessInfo.processInfo.processIdentifier)))
            }
        } catch {
            sink.finish()
            try? await channel.channel.close()
            throw error
        }
        return Link(outgoing: sink, writer: writer, generation: generation, compact: version >= 2)
    }

    /// Connects to the daemon's socket: the channel that reads the connection, and the writer of its frames.
    ///
    /// On Linux the socket is connected by hand and handed to NIO, and the writer sends on a duplicate of its
    /// descriptor from the callers' threads (``SocketWriter``); elsewhere NIO connects and the writer writes through
    /// the channel.
    private static func connect(_ socketPath: String, replies: ReplyTable) async throws -> (
        NIOAsyncChannel<ByteBuffer, ByteBuffer>, SocketWriter
    ) {
        @Sendable func initialize(_ channel: any Channel, _ writer: SocketWriter) -> EventLoopFuture<
            NIOAsyncChannel<ByteBuffer, ByteBuffer>
        > {
            channel.eventLoop.makeCompletedFuture {
                writer.attach(channel)
                return try channel.wrappedForWireProtocol(
                    maximumMessageSize: WireProtocol.maximumReplySize,
                    lineHandler: ReplyRouter(replies, writer: writer))
            }
        }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        #if os(Linux)
        let socket = try await UnixSocket.connect(path: socketPath, timeout: .seconds(5))
        let duplicate: CInt
        do {
            duplicate = try UnixSocket.duplicate(socket)
        } catch {
            UnixSocket.close(socket)
            throw error
        }
        let writer = SocketWriter(descriptor: duplicate)
        do {
            return (try await bootstrap.withConnectedSocket(socket) { initialize($0, writer) }, writer)
        } catch {
            writer.close()
            throw error
        }
        #elseif os(macOS)
        let writer = SocketWriter(descriptor: nil)
        let channel = try await bootstrap.connectTimeout(.seconds(5))
            .connect(unixDomainSocketPath: socketPath) { initialize($0, writer) }
        return (channel, writer)
        #else
        #error("DaemonConnection.connect: unsupported operating system")
        #endif
    }

    /// Runs the connection until it closes, then fails what waits on it.
    private nonisolated func pump(
        _ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, writer: SocketWriter, outgoing: AsyncStream<ClientMessage>,
        generation: UInt64
    ) async {
        do {
            try await channel.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in outgoing {
                            // An answer the wire cannot carry is dropped; the daemon's own deadline covers it.
                            guard let bytes = try? WireProtocol.encode(message) else { continue }
                            writer.write(bytes)
                        }
                        // The stream ends only when the app closes the connection (`close()`): close the socket, so
                        // the daemon sees the app leave now rather than when its process exits (the channel does not
                        // half-close, so finishing the writer alone would not tell it).
                        outbound.finish()
                        channel.channel.close(promise: nil)
                    }
                    defer { group.cancelAll() }
                    for try await line in inbound {
                        guard let message = try? WireProtocol.decodeServerMessage(from: Data(line.readableBytesView))
                        else { break }
                        await self.received(message)
                    }
                }
            }
        } catch {}
        await lost(generation: generation)
    }

    private func received(_ message: ServerMessage) {
        switch message {
        case .welcome(let accepted):
            welcome?.resume(returning: accepted.protocolVersion)
            welcome = nil
        case .reply(let id, let reply):
            replies.resume(id, with: .success(reply))
        case .failure(let id?, let failure):
            replies.resume(id, with: .failure(failure))
        case .failure(nil, let failure):
            welcome?.resume(throwing: failure)
            welcome = nil
            failAll(failure)
        case .willPresent(let eventID, let notification):
            let app = foreground
            Task {
                let options = await app?.willPresent(notification)
                await self.send(.presentationAnswer(eventID: eventID, options: options))
            }
        case .didReceive(let eventID, let response):
            let app = foreground
            Task {
                let accepted = await app?.didReceive(response) ?? false
                await self.send(.responseAck(eventID: eventID, accepted: accepted))
            }
        case .remoteNotification(let eventID, let push):
            let receiver = remoteReceiver
            Task {
                let accepted = await receiver?.didReceiveRemoteNotification(push) ?? false
                await self.send(.remoteNotificationAck(eventID: eventID, accepted: accepted))
            }
        case .serviceExtensionRequest(let eventID, let request):
            let host = extensionHost, appID = appID
            Task {
                guard let run = await host?.startExtension(for: request, appID: appID) else {
                    await self.send(.serviceExtensionContent(eventID: eventID, content: nil))
                    return
                }
                self.started(run, eventID: eventID)
                let content = await run.content()
                await self.send(.serviceExtensionContent(eventID: eventID, content: content))
            }
        case .serviceExtensionTimeWillExpire(let eventID):
            if let run = extensionRuns[eventID] {
                Task { await run.timeWillExpire() }
            } else {
                expiredBeforeStart.insert(eventID)
            }
        case .serviceExtensionFinished(let eventID):
            expiredBeforeStart.remove(eventID)
            if let run = extensionRuns.removeValue(forKey: eventID) { Task { await run.finish() } }
        case .contentExtensionView(let eventID, let notification):
            answerContentExtension(eventID: eventID, .view(appID: appID, notification: notification))
        case .contentExtensionResponse(let eventID, let response):
            answerContentExtension(eventID: eventID, .response(appID: appID, response: response))
        }
    }

    /// Hands a question of the web center to the app's content extension and sends its answer back.
    private func answerContentExtension(eventID: UInt64, _ message: ContentExtensionProcessMessage) {
        let answering = contentExtension?.answering
        Task {
            let answer = await answering?(message)
            await self.send(.contentExtensionAnswer(eventID: eventID, answer: answer))
        }
    }

    private func started(_ run: any ServiceExtensionRun, eventID: UInt64) {
        extensionRuns[eventID] = run
        if expiredBeforeStart.remove(eventID) != nil { Task { await run.timeWillExpire() } }
    }

    private func send(_ message: ClientMessage) {
        if case .connected(let link) = state { link.outgoing.yield(message) }
    }

    private func lost(generation: UInt64) {
        let failure = WireFailure(code: EngineError.Code.unavailable.name, message: "the connection to unotifyd was lost")
        welcome?.resume(throwing: failure)
        welcome = nil
        replies.disconnect(generation: generation)
        failAll(failure)
        if case .connected(let link) = state, link.generation == generation { state = .disconnected }
        for run in extensionRuns.values { Task { await run.finish() } }
        extensionRuns.removeAll()
        if hasAttachments, reconnecting == nil { reconnecting = Task { await self.reconnect() } }
    }

    /// Registers a request waiting for its reply, and makes sure a timer watches it.
    private func wait(_ id: UInt64, _ continuation: CheckedContinuation<WireReply, any Error>) {
        let deadline = ContinuousClock.now.advanced(by: replyTimeout)
        let registration = replies.register(id, continuation, deadline: deadline, requiringLink: false)
        if case .registered(_, startWatch: true) = registration {
            Task { await self.watchReplies() }
        }
    }

    /// Sleeps until the earliest deadline of a waiting request, fails the requests past theirs (a late reply finds no
    /// one waiting and is dropped), and goes on until no request waits. Every request has the same timeout, so a
    /// request sent later never has an earlier deadline.
    private nonisolated func watchReplies() async {
        let failure = WireFailure(
            code: EngineError.Code.unavailable.name,
            message: "unotifyd at \(socketPath) did not answer within "
                + replyTimeout.formatted(.units(allowed: [.seconds])))
        while let earliest = replies.earliestDeadline() {
            try? await Task.sleep(until: earliest, clock: .continuous)
            replies.timeOut(at: .now, failure)
        }
    }

    /// The daemon accepted the connection but did not welcome it in time.
    private func welcomeTimedOut(generation: UInt64) {
        guard self.generation == generation, let welcome else { return }
        self.welcome = nil
        welcome.resume(
            throwing: WireFailure(
                code: EngineError.Code.unavailable.name,
                message: "unotifyd at \(socketPath) accepted the connection but did not answer its hello"))
    }

    private func failAll(_ failure: WireFailure) {
        replies.failAll(failure)
    }

    /// Keeps trying to come back while anything is attached (backing off up to 5 s).
    private func reconnect() async {
        defer { reconnecting = nil }
        var delay = 0.1
        while hasAttachments, !Task.isCancelled {
            if (try? await connected()) != nil { return }
            try? await Task.sleep(for: .seconds(delay))
            delay = min(delay * 2, 5)
        }
    }
}
