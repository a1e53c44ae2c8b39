import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NotificationEngine
import NotificationModel
import ServiceLifecycle

/// The web notification center: server-rendered pages over the engine's own state (delivered notifications and
/// their actions, per app and thread), behind a per-user secret, with a strict Content-Security-Policy. What a
/// person does here goes through the same ``ResponseRelay`` as a click on a desktop notification.
///
/// The daemon composes it (`unotifyd --web-address`); tests run its router in-process with `HummingbirdTesting`.
///
/// ```swift
/// let relay = ResponseRelay()
/// relay.connect(scheduler)
/// let center = WebCenter(scheduler: scheduler, relay: relay, secret: .random(),
///                        configuration: WebCenterConfiguration(address: try WebCenterAddress(parsing: "127.0.0.1:0")))
/// try await center.run { baseURL in print("serving at \(baseURL)") }   // until the task is cancelled
/// ```
public struct WebCenter: Sendable {
    /// Address, limits and attachment root.
    public let configuration: WebCenterConfiguration
    /// The secret that opens it.
    public let secret: WebCenterSecret
    let scheduler: NotificationScheduler
    let relay: ResponseRelay
    let sessions = WebCenterSessions()
    let stopping = StopFlag()
    /// Which delivered notifications a person has read (kept in the engine's store).
    let readMarks: ReadMarks
    /// The apps' content extensions: those registered in this process, and the executables apps declared.
    public let contentExtensions: ContentExtensions
    let logger: Logger

    /// Creates a center over an engine.
    ///
    /// - Parameters:
    ///   - scheduler: The engine whose state the pages show and change.
    ///   - relay: The relay desktop clicks go through (connected to `scheduler`); the center's actions use it too.
    ///   - secret: The secret a browser must bring (``WebCenterFiles`` publishes it).
    ///   - configuration: Address, limits and attachment root.
    ///   - contentExtensions: The registry of apps' content extensions, when its owner made it first (the daemon,
    ///     whose apps register theirs over its socket); `nil` makes a new one.
    ///   - logger: Where failures are logged.
    public init(
        scheduler: NotificationScheduler, relay: ResponseRelay, secret: WebCenterSecret,
        configuration: WebCenterConfiguration, contentExtensions: ContentExtensions? = nil,
        logger: Logger = Logger(label: "unotifyd.web")
    ) {
        self.scheduler = scheduler
        self.relay = relay
        self.secret = secret
        self.configuration = configuration
        self.logger = logger
        readMarks = ReadMarks(store: scheduler.store)
        self.contentExtensions =
            contentExtensions ?? ContentExtensions(scheduler: scheduler, configuration: configuration)
    }

    /// The routes, behind the headers and access middleware.
    public func router() -> Router<WebCenterRequestContext> {
        let router = Router(context: WebCenterRequestContext.self)
        router.add(middleware: WebCenterHeaders(logger: logger))
        router.add(
            middleware: WebCenterAccess(
                secret: secret, sessions: sessions, maximumBodySize: configuration.maximumBodySize))
        router.get("/static/center.css") { _, _ in WebCenterAssets.response(WebCenterAssets.css, type: "text/css") }
        router.get("/static/center.js") { _, _ in
            WebCenterAssets.response(WebCenterAssets.script, type: "text/javascript")
        }
        let delivered = DeliveredRoutes(center: self)
        router.get("/") { _, context in try await delivered.page(context: context) }
        router.get("/attachments/:app/:notification/:index") { _, context in
            try await delivered.attachment(context: context)
        }
        router.post("/delivered/respond") { _, context in try await delivered.respond(context: context) }
        router.post("/delivered/dismiss") { _, context in try await delivered.dismiss(context: context) }
        router.post("/delivered/clear") { _, context in try await delivered.clear(context: context) }
        router.post("/delivered/snooze") { _, context in try await delivered.snooze(context: context) }
        router.post("/delivered/read") { _, context in try await delivered.markRead(context: context) }
        router.get("/extension/:app/:notification") { _, context in
            try await delivered.extensionView(context: context)
        }
        let scheduled = ScheduledRoutes(center: self)
        router.get("/scheduled") { _, context in try await scheduled.page(context: context) }
        router.post("/scheduled/remove") { _, context in try await scheduled.remove(context: context) }
        let history = HistoryRoutes(center: self)
        router.get("/history") { request, context in try await history.page(request: request, context: context) }
        let search = SearchRoutes(center: self)
        router.get("/search") { request, context in try await search.page(request: request, context: context) }
        let events = WebCenterEvents(
            scheduler: scheduler, readMarks: readMarks, pollInterval: configuration.eventPollInterval,
            historyLimit: configuration.historyLimit, stopping: stopping)
        router.get("/events") { request, _ in
            let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { Int64($0) }
            let (start, backlog) = try await events.start(after: lastEventID)
            let body = ResponseBody { writer in
                var cursor = start
                try await writer.write(ByteBuffer(string: backlog))
                do {
                    while true { try await writer.write(ByteBuffer(string: try await events.next(&cursor))) }
                } catch is CancellationError {
                    // The center stops: end the stream; the browser reconnects to the next one.
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
        let apps = AppsRoutes(center: self)
        router.get("/apps") { _, context in try await apps.page(context: context) }
        router.post("/apps/settings") { _, context in try await apps.settings(context: context) }
        router.post("/apps/badge") { _, context in try await apps.badge(context: context) }
        return router
    }

    /// Serves until the calling task is cancelled.
    ///
    /// - Parameter onListening: Called once the center listens, with its base URL (`http://host:port/`, the port the
    ///   system chose for port 0).
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/badAddress``) for an address beyond loopback without
    ///   ``WebCenterConfiguration/allowsRemote``; what binding throws (a port in use).
    public func run(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let address = configuration.address
        guard address.isLoopback || configuration.allowsRemote else {
            throw WebCenterError(
                .badAddress, "\(address) is not a loopback address: the center needs --web-allow-remote")
        }
        if !address.isLoopback {
            logger.warning(
                "the web center listens beyond loopback: anyone who has the link can act on notifications",
                metadata: ["address": "\(address)"])
        }
        let application = Application(
            router: router(),
            configuration: ApplicationConfiguration(
                address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                let host = address.host.contains(":") ? "[\(address.host)]" : address.host
                await onListening("http://\(host):\(port)/")
            },
            logger: logger)
        // Stopped by cancelling the calling task, the server shuts down gracefully: it stops listening, open event
        // streams end at their next poll, requests in flight finish. (Cancelling the server's own task instead would
        // cut them off, and Hummingbird logs that as an error.)
        let group = ServiceGroup(services: [application], logger: logger)
        let serving = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await serving.value
        } onCancel: { [stopping] in
            stopping.set()
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// The apps the center knows: those with a state in the store, pending requests, or history; sorted.
    func knownApps() async throws -> [String] {
        var apps = Set(try await scheduler.allApps().map(\.appID))
        apps.formUnion(try await scheduler.store.pendingCounts().keys)
        apps.formUnion(try await scheduler.history(appID: nil, limit: configuration.historyLimit).map(\.appID))
        return apps.sorted()
    }

    /// How many delivered notifications each app has that are not marked read (apps with none are left out).
    func unreadCounts() async throws -> [String: Int] {
        try await Self.unreadCounts(scheduler: scheduler, readMarks: readMarks)
    }

    /// How many delivered notifications each app has that are not marked read (apps with none are left out).
    static func unreadCounts(scheduler: NotificationScheduler, readMarks: ReadMarks) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for app in try await scheduler.allApps().map(\.appID) {
            let delivered = try await scheduler.deliveredNotifications(appID: app)
            guard !delivered.isEmpty else { continue }
            let unread = try await readMarks.unread(appID: app, delivered: delivered).count
            if unread > 0 { counts[app] = unread }
        }
        return counts
    }

    /// The number the navigation shows beside Delivered: every app's unread notifications.
    func unreadTotal() async throws -> Int {
        try await unreadCounts().values.reduce(0, +)
    }

    /// Dates as the center writes them, `2026-11-26 15:04:05`, in the clock's zone.
    func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = scheduler.clock.calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// An instant as `datetime` attributes take it (UTC, ISO 8601).
    static func machineTime(_ date: Date) -> String {
        date.ISO8601Format()
    }
}
