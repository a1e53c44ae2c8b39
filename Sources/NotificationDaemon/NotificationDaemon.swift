import Foundation
import Logging
import NIOCore
import NIOPosix
import NotificationDelivery
import NotificationEngine
import NotificationModel
import NotificationPlatform
import NotificationPushGateway
import NotificationSocket
import NotificationStoreSQLite
import NotificationWebCenter
import NotificationWire
import Synchronization

#if os(Linux)
import Glibc
#endif

/// The per-user notification daemon: owns the store and the engine for every app of its user, serves apps on a
/// Unix-domain socket (mode 0600, peers of other users refused), asks running apps before presenting, and hands
/// responses to apps when they run or through their launch command.
///
/// ```swift
/// let daemon = try NotificationDaemon(configuration: configuration, clock: SystemNotificationClock(),
///                                     presenter: TerminalPresenter())
/// try await daemon.run()   // until the task is cancelled
/// ```
public actor NotificationDaemon {
    /// Where the daemon is in its life.
    public enum State: Sendable, Equatable {
        case idle
        case running(since: Date)
        case stopped
    }

    public static let version = "0.1.0"

    public let configuration: DaemonConfiguration
    public nonisolated let scheduler: NotificationScheduler
    /// The web center's registry of apps' content extensions (those apps run in their own processes register over
    /// the socket); `nil` without a web center.
    public nonisolated let contentExtensions: ContentExtensions?
    private let store: any NotificationStore
    private let logger: Logger
    private let sessions = Mutex<[UInt64: DaemonSession]>([:])
    private let nextSessionID = Atomic<UInt64>(1)
    public private(set) var state = State.idle
    private var listening = false
    private var listeningWaiters: [CheckedContinuation<Void, Never>] = []

    /// Opens the store at the configured path and builds the engine.
    ///
    /// An existing store that cannot be opened for writing (a read-only file system) is opened read-only: the
    /// daemon then answers reads, answers every change with `storeFailure`, and delivers nothing until it is
    /// restarted on a writable store, so nothing already stored can be damaged.
    ///
    /// - Throws: When the store can be opened neither way.
    public init(
        configuration: DaemonConfiguration, clock: any NotificationClock, presenter: any NotificationPresenter,
        logger: Logger = Logger(label: "unotifyd")
    ) throws {
        self.init(
            configuration: configuration, store: try Self.openStore(at: configuration.storePath, logger: logger),
            clock: clock, presenter: presenter, logger: logger)
    }

    private static func openStore(at path: String, logger: Logger) throws -> SQLiteNotificationStore {
        let store = try openStoreForWritingIfPossible(at: path, logger: logger)
        // A damaged file is refused before anything is served from it: a page that cannot be read would otherwise
        // fail one listing or delivery after another, and writing to it can lose more. `quick_check` reads every
        // page once (a few hundred milliseconds for a million requests).
        let report = try store.check(thorough: false)
        guard report.isSound else {
            throw DaemonError.damagedStore(path: path, reason: report.problems.prefix(3).joined(separator: "; "))
        }
        return store
    }

    private static func openStoreForWritingIfPossible(at path: String, logger: Logger) throws -> SQLiteNotificationStore {
        do {
            return try SQLiteNotificationStore(path: path)
        } catch {
            guard FileManager.default.fileExists(atPath: path), let store = try? SQLiteNotificationStore(readOnlyAt: path)
            else { throw error }
            logger.error(
                "the store cannot be written (\(error)): serving it read-only; changes are refused and nothing is delivered",
                metadata: ["store": "\(path)"])
            return store
        }
    }

    /// Builds a daemon over a given store (an in-memory one in tests).
    public init(
        configuration: DaemonConfiguration, store: any NotificationStore, clock: any NotificationClock,
        presenter: any NotificationPresenter, logger: Logger = Logger(label: "unotifyd")
    ) {
        self.configuration = configuration
        self.logger = logger
        self.store = store
        let scheduler = NotificationScheduler(
            store: store, clock: clock, presenter: presenter, configuration: configuration.engine, logger: logger,
            launcher: LaunchCommandLauncher(store: store, logger: logger),
            serviceExtensionHost: ServiceExtensionProcessHost(
                store: store, attachmentStoreRoot: configuration.engine.attachmentStoreRoot, logger: logger))
        self.scheduler = scheduler
        contentExtensions = configuration.webCenter.map {
            ContentExtensions(scheduler: scheduler, configuration: $0)
        }
    }

    /// Serves until the calling task is cancelled: binds the socket, runs the engine loop, watches the store.
    public func run() async throws {
        guard state == .idle else { return }
        let lock = try lockStore()
        defer { lock?.release() }
        try await writePolicy()
        state = .running(since: Date())
        defer { state = .stopped }
        let server = try await bind()
        listening = true
        for waiter in listeningWaiters { waiter.resume() }
        listeningWaiters.removeAll()
        logger.info("listening", metadata: ["socket": "\(configuration.socketPath)", "store": "\(configuration.storePath)"])
        let scheduler = scheduler
        // The APNs provider API, when configured (`--apns-address`): if it cannot start, the socket is served anyway.
        var apnsEndpoints: [APNsEndpoint] = []
        for endpoint in [configuration.apnsEndpoint, configuration.apnsProductionEndpoint].compactMap({ $0 }) {
            do { apnsEndpoints.append(try await endpoint.start(scheduler: scheduler, logger: logger)) } catch {
                logger.error(
                    "the APNs endpoint did not start: \(error)",
                    metadata: [
                        "address": "\(endpoint.configuration.address)",
                        "environment": "\(endpoint.configuration.environment.rawValue)",
                    ])
            }
        }
        // Every write to the file wakes the monitor, the engine's own too: only another process's wakes the loop.
        let sqliteStore = scheduler.store as? SQLiteNotificationStore
        _ = sqliteStore?.changedElsewhere()
        // The store's own writes answer the check for other processes' commits (StoreFileMonitor(watching:at:)).
        let monitor =
            if let sqliteStore {
                StoreFileMonitor(watching: sqliteStore, at: configuration.storePath) { scheduler.storeDidChange() }
            } else {
                StoreFileMonitor(storePath: configuration.storePath) { scheduler.storeDidChange() }
            }
        // The wall clock jumped (manual change, NTP step, resume): wake up and re-compute the sleep.
        let jumps = try? WallClockJumpMonitor(onJump: { scheduler.storeDidChange() })
        // The system zone changed: re-plan floating calendar triggers.
        let systemZone = configuration.systemZone
        let zones = try? TimeZoneMonitor(localtimePath: configuration.localtimePath, timezonePath: configuration.timezonePath) {
            [logger] zone in
            logger.info("system time zone changed", metadata: ["zone": "\(zone.identifier)"])
            systemZone?.set(zone)
            Task { try? await scheduler.timeZoneDidChange() }
        }
        defer {
            withExtendedLifetime(monitor) {}
            jumps?.cancel()
            zones?.cancel()
        }
        do {
            // On stop, every connection is closed at once: a session waiting on a client that does not read (its
            // reader paused by back-pressure, its writer by a full socket) would otherwise hold the stop up.
            try await withTaskCancellationHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    if configuration.runsEngineLoop { group.addTask { await scheduler.run() } }
                    if let web = configuration.webCenter {
                        group.addTask { [logger, configuration, contentExtensions] in
                            await Self.serveWebCenter(
                                web, configuration: configuration, scheduler: scheduler,
                                contentExtensions: contentExtensions, logger: logger)
                        }
                    }
                    if let source = configuration.locationSource {
                        group.addTask { [logger] in
                            do {
                                for try await fix in source.fixes() {
                                    _ = try? await scheduler.locationDidChange(fix, deliver: true)
                                }
                            } catch {
                                logger.warning("the location source stopped: \(error)")
                            }
                        }
                    }
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            // On the connection's event loop: see EventLoopTaskExecutor.
                            let loop = EventLoopTaskExecutor(connection.1.channel.eventLoop)
                            group.addTask(executorPreference: loop) { await self.serve(connection) }
                        }
                    }
                }
            } onCancel: {
                for session in sessions.withLock({ Array($0.values) }) { session.close() }
            }
        } catch {
            for endpoint in apnsEndpoints { await endpoint.stop() }
            throw error
        }
        for endpoint in apnsEndpoints { await endpoint.stop() }
    }

    /// Serves the web center until the task is cancelled, with a new secret published beside the socket once it
    /// listens (and removed when it stops). A center that cannot start is logged; the daemon serves on.
    private static func serveWebCenter(
        _ web: WebCenterConfiguration, configuration: DaemonConfiguration, scheduler: NotificationScheduler,
        contentExtensions: ContentExtensions?, logger: Logger
    ) async {
        let relay = configuration.responseRelay ?? ResponseRelay(logger: logger)
        if configuration.responseRelay == nil { relay.connect(scheduler) }
        let files = WebCenterFiles(socketPath: configuration.socketPath)
        let center = WebCenter(
            scheduler: scheduler, relay: relay, secret: .random(), configuration: web,
            contentExtensions: contentExtensions, logger: logger)
        defer { files.remove() }
        do {
            try await center.run { [logger] baseURL in
                do {
                    try files.publish(secret: center.secret, baseURL: baseURL)
                    logger.info("web center listening", metadata: ["url": "\(baseURL)", "token": "\(files.tokenPath)"])
                } catch {
                    logger.error("the web center's secret could not be written: \(error)")
                }
            }
        } catch is CancellationError {
        } catch {
            logger.error("the web center did not start: \(error)", metadata: ["address": "\(web.address)"])
        }
    }

    /// Takes the store's daemon lock, or throws ``DaemonError`` (``DaemonError/Code/alreadyRunning``) naming the
    /// daemon that holds it; `nil` when the configuration asks for no lock or names no store file.
    private func lockStore() throws -> ExclusiveFileLock? {
        guard configuration.locksStore, !configuration.storePath.isEmpty else { return nil }
        let owner = "pid \(getpid()) socket \(configuration.socketPath)"
        let outcome: ExclusiveFileLock.Outcome
        do {
            outcome = try ExclusiveFileLock.acquire(path: configuration.storeLockPath, owner: owner)
        } catch let error as SystemCallError where error.code == EROFS || error.code == EACCES {
            // A store on a read-only file system (served read-only): no daemon can change it, so no lock is needed.
            logger.warning("no daemon lock beside a store that cannot be written: \(error)")
            return nil
        }
        switch outcome {
        case .acquired(let lock): return lock
        case .heldByOther(let owner):
            throw DaemonError.alreadyRunning(owner: owner, storePath: configuration.storePath)
        }
    }

    /// Writes the settings the daemon was given into the store, for every process that uses it.
    private func writePolicy() async throws {
        let given = configuration.policyToWrite
        guard given != StorePolicy() else { return }
        var policy = try await store.policy()
        if let cap = given.pendingCap { policy.pendingCap = cap }
        if let authorization = given.authorizationPolicy { policy.authorizationPolicy = authorization }
        try await store.setPolicy(policy)
        let cap = policy.pendingCap?.description ?? "unset"
        let authorization = policy.authorizationPolicy?.rawValue ?? "unset"
        logger.info("store policy", metadata: ["pendingCap": "\(cap)", "authorization": "\(authorization)"])
    }

    /// Returns once the socket accepts connections.
    public func waitUntilListening() async {
        if listening { return }
        await withCheckedContinuation { listeningWaiters.append($0) }
    }

    /// Binds the listening socket: the inherited one (socket activation) or a new one, mode 0600, in a folder of
    /// mode 0700.
    private func bind() async throws -> NIOAsyncChannel<Connection, Never> {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            channel.peerCredential().map { Optional($0) }.recover { _ in nil }.flatMapThrowing { credential in
                // The lines go to the reader through InboundLines; NIO's channel is kept for writing events.
                let lines = InboundLines()
                return (credential, try channel.wrappedForWireProtocol(lineHandler: lines), lines)
            }
        }
        if let socket = configuration.inheritedSocket {
            return try await bootstrap.bind(socket, childChannelInitializer: initializer)
        }
        let folder = URL(fileURLWithPath: configuration.socketPath).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // No umask(0o177) around the bind: the umask is the whole process's, and a daemon embedded in a process (the
        // tests, OpenUserNotificationsTesting) would make every file another thread creates meanwhile 0600. The socket
        // is bound under a temporary name in the 0700 folder, made 0600, and only then renamed to its path (rename is
        // atomic): a client never finds it at its path with the umask's mode.
        // (A short name: a Unix socket's path has at most 107 bytes.)
        let temporaryPath = "\(folder)/.\(getpid())"
        let server = try await bootstrap.bind(
            unixDomainSocketPath: temporaryPath, cleanupExistingSocketFile: true, childChannelInitializer: initializer)
        guard chmod(temporaryPath, 0o600) == 0, rename(temporaryPath, configuration.socketPath) == 0 else {
            let error = IOError(errnoCode: errno, reason: "putting the socket in place at \(configuration.socketPath)")
            unlink(temporaryPath)
            try? await server.channel.close()
            throw error
        }
        return server
    }

    /// An accepted connection: the peer's credentials, the channel, and the lines read from it.
    private typealias Connection = (PeerCredential?, NIOAsyncChannel<ByteBuffer, ByteBuffer>, InboundLines)

    /// Serves one connection until it closes.
    private nonisolated func serve(_ connection: Connection) async {
        let (credential, channel, lines) = connection
        guard let credential, credential.userID == getuid() else {
            logger.warning("refused a connection from another user", metadata: ["uid": "\(connection.0?.userID ?? 0)"])
            try? await channel.channel.close()
            return
        }
        let id = nextSessionID.add(1, ordering: .relaxed).oldValue
        let (outgoing, outgoingSink) = AsyncStream<ServerMessage>.makeStream()
        let (requests, requestSink) = AsyncStream<(UInt64, WireRequest)>.makeStream()
        let rawChannel = channel.channel
        let session = DaemonSession(
            id: id, peerProcessID: credential.processID, outgoing: outgoingSink,
            maximumQueued: configuration.maximumQueuedMessages,
            maximumUnansweredRequests: configuration.maximumUnansweredRequests,
            answerTimeout: configuration.answerTimeout,
            writeDirectly: { frame, written in
                // From the worker's thread straight to the socket: no hand-over to the writer task for a reply.
                rawChannel.writeAndFlush(ByteBuffer(bytes: frame)).whenComplete { _ in written() }
            },
            closeConnection: { rawChannel.close(promise: nil) })
        let admitted = sessions.withLock { sessions in
            let fromPeer = sessions.values.count { $0.peerProcessID == credential.processID }
            guard fromPeer < configuration.maximumConnectionsPerPeer else { return false }
            sessions[id] = session
            return true
        }
        guard admitted else {
            logger.warning(
                "refused a connection: the process already has \(configuration.maximumConnectionsPerPeer) open",
                metadata: ["pid": "\(credential.processID)"])
            try? await channel.channel.close()
            return
        }
        // A connection that never says hello is closed: it holds a descriptor and serves no app.
        let helloDeadline = Task { [logger, configuration] in
            try await Task.sleep(for: .seconds(configuration.helloDeadline))
            guard session.appID == nil else { return }
            logger.info("closed a connection that sent no hello in time", metadata: ["pid": "\(credential.processID)"])
            session.close()
        }
        defer {
            helloDeadline.cancel()
            sessions.withLock { $0[id] = nil }
            session.close()
            // A client that made us hold replies is gone: give what it cost back to the system.
            if session.wasThrottled { FreedMemory.returnToSystem() }
        }
        do {
            try await channel.executeThenClose { _, outbound in
                let writer = Task {
                    do {
                        for await message in outgoing {
                            try await outbound.write(ByteBuffer(bytes: try WireProtocol.encode(message)))
                            session.didWrite(message)
                        }
                    } catch {
                        // The peer is gone (a reset, a closed socket): end the session, whose reader may be paused by
                        // back-pressure and would not see the end of the stream itself.
                        session.close()
                        throw error
                    }
                }
                let worker = Task {
                    for await (requestID, request) in requests {
                        // A closed session (the peer left, or the daemon stops) gets no more work done for it.
                        guard !session.isClosed else { break }
                        session.send(await self.handle(request, id: requestID, session: session))
                        session.workerAnsweredRequest()
                    }
                }
                defer {
                    writer.cancel()
                    worker.cancel()
                }
                do {
                    // On the daemon's stop every session is closed, which ends its lines; a connection accepted
                    // while the stop runs is closed here.
                    try await withTaskCancellationHandler {
                        while let line = try await lines.next() {
                            let message: ClientMessage
                            do {
                                message = try Self.decode(line, speaksCompactFrames: session.speaksCompactFrames)
                            } catch let error as CompactFrame.Malformed {
                                session.send(
                                    .failure(
                                        id: nil,
                                        WireFailure(code: "malformed", message: "not a protocol message: \(error)")))
                                break
                            } catch {
                                session.send(
                                    .failure(
                                        id: nil, WireFailure(code: "malformed", message: "not a protocol message")))
                                break
                            }
                            // An add while the worker has nothing of this connection runs here, in the reader:
                            // the hand-over to the worker task cost a thread wake-up per add. It asks the client
                            // nothing (no event answer it would wait for, which this reader would not read
                            // meanwhile), and the connection's order holds: everything before it was answered,
                            // nothing after it is read until it is.
                            if case .request(let requestID, let request) = message, case .add = request,
                                session.appID != nil, session.workerIsIdle
                            {
                                session.countRequestRead()
                                session.send(await self.handle(request, id: requestID, session: session))
                                // Back-pressure, as below.
                                await session.waitForRoom()
                                continue
                            }
                            guard handle(message, session: session, requests: requestSink) else { break }
                            // Back-pressure: too many unanswered requests, and this connection is not read further.
                            if case .request = message { await session.requestRead() }
                        }
                    } onCancel: {
                        session.close()
                    }
                } catch {
                    logger.debug("connection read failed: \(error)", metadata: ["session": "\(id)"])
                }
                // Answer what was asked, then let the last messages (an error saying why) go out, briefly.
                requestSink.finish()
                await worker.value
                session.finishSending()
                _ = await FirstAnswer.race(
                    {
                        try? await writer.value
                        return true
                    },
                    orElse: {
                        try? await Task.sleep(for: .seconds(2))
                        return false
                    })
            }
        } catch {
            logger.debug("connection closed: \(error)", metadata: ["session": "\(id)"])
        }
        if let appID = session.appID {
            await scheduler.detach(session, appID: appID)
            await scheduler.detachRemoteReceiver(session, appID: appID)
            await scheduler.detachServiceExtension(session, appID: appID)
            contentExtensions?.unregister(appID: appID, ifStill: session)
        }
    }

    /// Reads one line of a client: a ``CompactFrame`` (only from a client that agreed on version 2 in its hello),
    /// read in NIO's buffer without a copy into a `Data`, or JSON.
    /// - Throws: ``CompactFrame/Malformed`` for a frame that cannot be read or is not yet agreed; the JSON decoder's
    ///   error for anything else that is not a message.
    private static func decode(_ line: ByteBuffer, speaksCompactFrames: Bool) throws -> ClientMessage {
        guard line.getInteger(at: line.readerIndex, as: UInt8.self) == CompactFrame.marker else {
            return try WireProtocol.decodeClientMessage(from: Data(line.readableBytesView))
        }
        guard speaksCompactFrames else {
            throw CompactFrame.Malformed(description: "a frame before protocol version 2 was agreed")
        }
        return try line.withUnsafeReadableBytes { try CompactFrame.clientMessage(fromBytes: $0) }
    }

    /// Handles a message in the reader: hello, answers to events, requests (queued in order for the worker).
    /// - Returns: `false` to close the connection.
    private nonisolated func handle(
        _ message: ClientMessage, session: DaemonSession, requests: AsyncStream<(UInt64, WireRequest)>.Continuation
    ) -> Bool {
        switch message {
        case .hello(let hello):
            guard
                let version = WireProtocol.agreedVersion(
                    oldest: hello.protocolVersion, newest: hello.newestProtocolVersion)
            else {
                let client =
                    hello.newestProtocolVersion.map { "\(hello.protocolVersion) to \($0)" } ?? "\(hello.protocolVersion)"
                session.send(
                    .failure(
                        id: nil,
                        WireFailure(
                            code: "protocolMismatch",
                            message:
                                "unotifyd speaks protocol \(WireProtocol.oldestVersion) to \(WireProtocol.version), the client \(client)"
                        )))
                return false
            }
            guard session.appID == nil else {
                session.send(.failure(id: nil, WireFailure(code: "malformed", message: "hello needs an app, once")))
                return false
            }
            do throws(AppIdentifier.Invalid) {
                try AppIdentifier.validate(hello.appID)
            } catch {
                session.send(.failure(id: nil, WireFailure(code: "malformed", message: error.description)))
                return false
            }
            session.appID = hello.appID
            session.speaksCompactFrames = version >= 2
            session.send(.welcome(Welcome(protocolVersion: version, daemonVersion: Self.version)))
        case .request(let id, let request):
            guard session.appID != nil else {
                session.send(.failure(id: id, WireFailure(code: "malformed", message: "hello first")))
                return false
            }
            session.workerTookRequest()
            requests.yield((id, request))
        case .presentationAnswer(let eventID, _), .responseAck(let eventID, _), .remoteNotificationAck(let eventID, _),
            .serviceExtensionContent(let eventID, _), .contentExtensionAnswer(let eventID, _):
            session.answer(eventID: eventID, with: message)
        }
        return true
    }

    /// Runs one request for the session's app, off the daemon's actor: a request needs none of the actor's state (the
    /// status reply awaits it), so the worker's task goes from the socket to the engine without a stop on the way.
    ///
    /// On the caller's executor (`nonsending`), as ``perform(_:app:session:)``: no executor switch on the way in and
    /// out, which with the reader's task executor preference took the task's status lock each time.
    private nonisolated(nonsending) func handle(_ request: WireRequest, id: UInt64, session: DaemonSession) async
        -> ServerMessage
    {
        guard let app = session.appID else { return .failure(id: id, WireFailure(code: "malformed", message: "hello first")) }
        do {
            return .reply(id: id, try await perform(request, app: app, session: session))
        } catch let error as EngineError {
            return .failure(id: id, WireFailure(code: error.code.name, message: error.message))
        } catch {
            return .failure(id: id, WireFailure(code: EngineError.Code.storeFailure.name, message: "\(error)"))
        }
    }

    private nonisolated(nonsending) func perform(_ request: WireRequest, app: String, session: DaemonSession) async throws
        -> WireReply
    {
        switch request {
        case .add(let spec):
            try await scheduler.add(spec, appID: app)
            return .done
        case .addBatch(let specs):
            do {
                let result = try await scheduler.add(contentsOf: specs, appID: app)
                return .batchAdded(BatchAddReport(added: result.added, discarded: result.discarded, refusals: []))
            } catch let error as BatchAddError {
                let refusals = error.refusals.map {
                    BatchAddReport.Refusal(index: $0.index, code: $0.error.code.name, message: $0.error.message)
                }
                return .batchAdded(BatchAddReport(added: 0, discarded: [], refusals: refusals))
            }
        case .pendingRequests: return .pendingRequests(try await scheduler.pendingRequests(appID: app))
        case .removePending(let identifiers):
            try await scheduler.removePending(appID: app, identifiers: identifiers)
            return .done
        case .deliveredNotifications: return .deliveredNotifications(try await scheduler.deliveredNotifications(appID: app))
        case .removeDelivered(let identifiers):
            try await scheduler.removeDelivered(appID: app, identifiers: identifiers)
            return .done
        case .setCategories(let categories):
            try await scheduler.setCategories(categories, appID: app)
            return .done
        case .categories: return .categories(try await scheduler.categories(appID: app))
        case .requestAuthorization(let options):
            return .granted(try await scheduler.requestAuthorization(appID: app, options: options))
        case .setAuthorization(let status, let options):
            try await scheduler.setAuthorization(appID: app, status: status, options: options)
            return .done
        case .appState: return .appState(try await scheduler.appState(appID: app))
        case .setBadge(let count):
            try await scheduler.setBadge(appID: app, count: count)
            return .done
        case .history(let limit, let allApps):
            return .history(try await scheduler.history(appID: allApps ? nil : app, limit: limit))
        case .respond(let identifier, let action, let text):
            return .responded(
                routed: try await scheduler.respond(
                    appID: app, notificationIdentifier: identifier, actionIdentifier: action, userText: text))
        case .attach:
            // Hands over queued responses; their acknowledgements arrive through the reader, not this worker.
            await scheduler.attach(session, appID: app)
            return .done
        case .detach:
            await scheduler.detach(session, appID: app)
            return .done
        case .setLaunchCommand(let command):
            try await scheduler.setLaunchCommand(command, appID: app)
            return .done
        case .status: return .status(try await status())
        case .registerForRemoteNotifications(let bundleDirectory):
            return .pushRegistration(
                try await scheduler.registerForRemoteNotifications(appID: app, bundleDirectory: bundleDirectory))
        case .unregisterForRemoteNotifications:
            return .pushRegistration(try await scheduler.unregisterForRemoteNotifications(appID: app))
        case .pushRegistration:
            return .pushRegistration(try await scheduler.pushRegistration(appID: app))
        case .attachRemoteReceiver:
            await scheduler.attachRemoteReceiver(session, appID: app)
            return .done
        case .detachRemoteReceiver:
            await scheduler.detachRemoteReceiver(appID: app)
            return .done
        case .attachServiceExtension:
            await scheduler.attachServiceExtension(session, appID: app)
            return .done
        case .detachServiceExtension:
            await scheduler.detachServiceExtension(appID: app)
            return .done
        case .setServiceExtensionCommand(let command):
            try await scheduler.setServiceExtensionCommand(command, appID: app)
            return .done
        case .setContentExtension(let declaration):
            try await scheduler.setContentExtension(declaration, appID: app)
            return .done
        case .attachContentExtension(let categories, let allowsNetwork):
            // Without a web center (--web-address off) nothing draws: the extension waits unused.
            contentExtensions?.register(appID: app, categories: categories, allowsNetwork: allowsNetwork, session)
            return .done
        case .detachContentExtension:
            contentExtensions?.unregister(appID: app)
            return .done
        case .deliverPush(let push):
            // The engine loop delivers it (woken by the store change), as for pushes from the APNs endpoint.
            let outcome = try await scheduler.deliverPush(push, appID: app, deliver: !configuration.runsEngineLoop)
            return .pushDelivered(outcome: outcome.rawValue)
        case .locationDidChange(let fix):
            // Location is the device's: every app's regions are evaluated; the caller hears of its own only.
            let events = try await scheduler.locationDidChange(fix, deliver: true)
            return .locationEvents(
                events.filter { $0.appID == app }.map {
                    LocationEventReport(
                        requestIdentifier: $0.requestIdentifier, regionIdentifier: $0.regionIdentifier,
                        crossing: $0.crossing, distance: $0.distance, fires: $0.fires)
                })
        }
    }

    /// The daemon's state for `unotify status`.
    public func status() async throws -> DaemonStatus {
        let running = await scheduler.runningApps
        let counts = try await store.pendingCounts()
        var apps: [DaemonStatus.AppSummary] = []
        for state in try await store.allAppStates() {
            apps.append(
                DaemonStatus.AppSummary(
                    appID: state.appID, authorization: state.authorization, pendingCount: counts[state.appID] ?? 0,
                    running: running.contains(state.appID),
                    launchCommand: try? await store.launchCommand(appID: state.appID)))
        }
        let started: Date = if case .running(let since) = state { since } else { Date() }
        return DaemonStatus(
            daemonVersion: Self.version, protocolVersion: WireProtocol.version, processID: getpid(), startedAt: started,
            uptime: Date().timeIntervalSince(started), storePath: configuration.storePath,
            socketPath: configuration.socketPath, pendingCount: counts.values.reduce(0, +),
            nextFireDate: try await store.nextWakeDate(), lastDelivery: try await store.history(appID: nil, limit: 1).first,
            apps: apps, connectedClients: sessions.withLock { $0.count })
    }
}
