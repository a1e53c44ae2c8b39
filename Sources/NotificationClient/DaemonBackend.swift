import Foundation
import NotificationEngine
import NotificationLocation
import NotificationModel
import NotificationWire
import Synchronization

#if os(Linux)
import Glibc
#endif

/// A ``NotificationBackend`` that forwards every call to `unotifyd`, one connection per app.
public final class DaemonBackend: NotificationBackend {
    public let socketPath: String
    private let connections = Mutex<[String: DaemonConnection]>([:])

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The connection for an app, opened on first use.
    public func connection(for appID: String) -> DaemonConnection {
        connections.withLock { connections in
            if let existing = connections[appID] { return existing }
            let connection = DaemonConnection(socketPath: socketPath, appID: appID)
            connections[appID] = connection
            return connection
        }
    }

    private func call(_ appID: String, _ request: WireRequest) async throws -> WireReply {
        try await connection(for: appID).request(request)
    }

    private func unexpected(_ reply: WireReply) -> EngineError {
        EngineError(.invalidArgument, "unotifyd answered with an unexpected reply: \(reply)")
    }

    public func add(_ spec: RequestSpec, appID: String) async throws {
        _ = try await call(appID, .add(spec))
    }

    /// Adds the batch in as few messages as the wire's message size allows (about 1 MiB each), each stored in one
    /// transaction by the daemon.
    ///
    /// Every request is checked here first with the checks that do not depend on the clock, so such a refused request
    /// sends nothing. A batch that needs several messages is not one transaction: should the daemon refuse a later
    /// message (a calendar trigger no date matches, which depends on the daemon's clock; a denied app) or fail to
    /// store it, the earlier messages stay stored.
    public func add(contentsOf specs: [RequestSpec], appID: String) async throws -> BatchAddResult {
        var refusals: [BatchAddError.Refusal] = []
        for (index, spec) in specs.enumerated() {
            do { try NotificationScheduler.check(spec) } catch let error as EngineError {
                refusals.append(BatchAddError.Refusal(index: index, error: error))
            }
        }
        guard refusals.isEmpty else { throw BatchAddError(refusals: refusals) }
        var result = BatchAddResult(added: 0, discarded: [])
        for (offset, chunk) in try Self.messageSizedChunks(of: specs) {
            let reply = try await call(appID, .addBatch(Array(chunk)))
            guard case .batchAdded(let report) = reply else { throw unexpected(reply) }
            guard report.refusals.isEmpty else {
                throw BatchAddError(refusals: report.refusals.map {
                    BatchAddError.Refusal(
                        index: offset + $0.index,
                        error: EngineError(EngineError.Code(name: $0.code) ?? .invalidArgument, $0.message))
                })
            }
            result.added += report.added
            result.discarded += report.discarded
        }
        return result
    }

    /// `specs` in runs that each fit in one message, with the index of each run's first request.
    static func messageSizedChunks(of specs: [RequestSpec]) throws -> [(Int, ArraySlice<RequestSpec>)] {
        var chunks: [(Int, ArraySlice<RequestSpec>)] = []
        var pending: [ArraySlice<RequestSpec>] = stride(from: 0, to: specs.count, by: 1_000).map {
            specs[$0..<min($0 + 1_000, specs.count)]
        }
        while !pending.isEmpty {
            let chunk = pending.removeFirst()
            let size = try WireProtocol.encode(ClientMessage.request(id: .max, .addBatch(Array(chunk)))).count
            if size <= WireProtocol.maximumMessageSize {
                chunks.append((chunk.startIndex, chunk))
            } else if chunk.count == 1 {
                throw EngineError(
                    .invalidArgument,
                    "request '\(chunk.first!.identifier)' is larger than unotifyd takes (\(WireProtocol.maximumMessageSize) bytes)")
            } else {
                let middle = chunk.startIndex + chunk.count / 2
                pending.insert(contentsOf: [chunk[chunk.startIndex..<middle], chunk[middle...]], at: 0)
            }
        }
        return chunks
    }

    public func pendingRequests(appID: String) async throws -> [PendingRequest] {
        let reply = try await call(appID, .pendingRequests)
        guard case .pendingRequests(let list) = reply else { throw unexpected(reply) }
        return list
    }

    public func removePending(appID: String, identifiers: [String]?) async throws {
        _ = try await call(appID, .removePending(identifiers: identifiers))
    }

    public func deliveredNotifications(appID: String) async throws -> [DeliveredNotification] {
        let reply = try await call(appID, .deliveredNotifications)
        guard case .deliveredNotifications(let list) = reply else { throw unexpected(reply) }
        return list
    }

    public func removeDelivered(appID: String, identifiers: [String]?) async throws {
        _ = try await call(appID, .removeDelivered(identifiers: identifiers))
    }

    public func setCategories(_ categories: [CategorySpec], appID: String) async throws {
        _ = try await call(appID, .setCategories(categories))
    }

    public func categories(appID: String) async throws -> [CategorySpec] {
        let reply = try await call(appID, .categories)
        guard case .categories(let list) = reply else { throw unexpected(reply) }
        return list
    }

    public func requestAuthorization(appID: String, options: AuthorizationSet) async throws -> Bool {
        let reply = try await call(appID, .requestAuthorization(options))
        guard case .granted(let granted) = reply else { throw unexpected(reply) }
        return granted
    }

    public func setAuthorization(appID: String, status: AuthorizationStatus, options: AuthorizationSet) async throws {
        _ = try await call(appID, .setAuthorization(status, options))
    }

    public func appState(appID: String) async throws -> AppState {
        let reply = try await call(appID, .appState)
        guard case .appState(let state) = reply else { throw unexpected(reply) }
        return state
    }

    public func setBadge(appID: String, count: Int) async throws {
        _ = try await call(appID, .setBadge(count))
    }

    public func history(appID: String?, limit: Int) async throws -> [HistoryEntry] {
        let reply = try await call(appID ?? "local.unotify", .history(limit: limit, allApps: appID == nil))
        guard case .history(let entries) = reply else { throw unexpected(reply) }
        return entries
    }

    @discardableResult
    public func respond(appID: String, notificationIdentifier: String, actionIdentifier: String, userText: String?)
        async throws -> Bool
    {
        let reply = try await call(
            appID, .respond(identifier: notificationIdentifier, actionIdentifier: actionIdentifier, userText: userText))
        guard case .responded(let routed) = reply else { throw unexpected(reply) }
        return routed
    }

    public func attach(_ app: any ForegroundApp, appID: String) async {
        try? await connection(for: appID).attach(app)
    }

    public func detach(appID: String) async {
        try? await connection(for: appID).detach()
    }

    public func setLaunchCommand(_ command: [String]?, appID: String) async throws {
        _ = try await call(appID, .setLaunchCommand(command))
    }

    public func registerForRemoteNotifications(appID: String, bundleDirectory: String?) async throws -> PushRegistration {
        let reply = try await call(appID, .registerForRemoteNotifications(bundleDirectory: bundleDirectory))
        guard case .pushRegistration(let registration?) = reply else { throw unexpected(reply) }
        return registration
    }

    public func unregisterForRemoteNotifications(appID: String) async throws -> PushRegistration? {
        let reply = try await call(appID, .unregisterForRemoteNotifications)
        guard case .pushRegistration(let registration) = reply else { throw unexpected(reply) }
        return registration
    }

    public func pushRegistration(appID: String) async throws -> PushRegistration? {
        let reply = try await call(appID, .pushRegistration)
        guard case .pushRegistration(let registration) = reply else { throw unexpected(reply) }
        return registration
    }

    public func attachRemoteReceiver(_ receiver: any RemoteNotificationReceiver, appID: String) async {
        try? await connection(for: appID).attachRemoteReceiver(receiver)
    }

    public func detachRemoteReceiver(appID: String) async {
        try? await connection(for: appID).detachRemoteReceiver()
    }

    public func attachServiceExtension(_ host: any ServiceExtensionHost, appID: String) async {
        try? await connection(for: appID).attachServiceExtension(host)
    }

    public func detachServiceExtension(appID: String) async {
        try? await connection(for: appID).detachServiceExtension()
    }

    public func setServiceExtensionCommand(_ command: [String]?, appID: String) async throws {
        _ = try await call(appID, .setServiceExtensionCommand(command))
    }

    public func setContentExtension(_ declaration: ContentExtensionDeclaration?, appID: String) async throws {
        _ = try await call(appID, .setContentExtension(declaration))
    }

    public func attachContentExtension(
        _ answering: @escaping ContentExtensionAnswering, categories: [String], allowsNetwork: Bool, appID: String
    ) async {
        try? await connection(for: appID).attachContentExtension(
            answering, categories: categories, allowsNetwork: allowsNetwork)
    }

    public func detachContentExtension(appID: String) async {
        try? await connection(for: appID).detachContentExtension()
    }

    /// Hands a push to the daemon, which delivers it as its APNs endpoint would (service extension, background
    /// pushes to the running app).
    public func deliverPush(_ push: RemoteNotification, appID: String) async throws -> PushDeliveryOutcome {
        let reply = try await call(appID, .deliverPush(push))
        guard case .pushDelivered(let raw) = reply, let outcome = PushDeliveryOutcome(rawValue: raw) else {
            throw unexpected(reply)
        }
        return outcome
    }

    /// Hands a location fix to the daemon, which evaluates every app's location triggers and delivers what fires.
    ///
    /// - Returns: The crossings of `appID`'s requests.
    public func locationDidChange(_ fix: LocationFix, appID: String) async throws -> [NotificationScheduler.LocationEvent] {
        let reply = try await call(appID, .locationDidChange(fix))
        guard case .locationEvents(let reports) = reply else { throw unexpected(reply) }
        return reports.map {
            NotificationScheduler.LocationEvent(
                appID: appID, requestIdentifier: $0.requestIdentifier, regionIdentifier: $0.regionIdentifier,
                crossing: $0.crossing, distance: $0.distance, fires: $0.fires)
        }
    }

    /// The daemon's state.
    public func status(appID: String = "local.unotify") async throws -> DaemonStatus {
        let reply = try await call(appID, .status)
        guard case .status(let status) = reply else { throw unexpected(reply) }
        return status
    }

    /// Whether a daemon accepts connections on `socketPath` right now: a quick, blocking local `connect`.
    public static func isListening(at socketPath: String) -> Bool {
        #if os(Linux)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
        #elseif os(macOS)
        return false
        #else
        #error("isListening: unsupported operating system")
        #endif
    }
}
