import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationStorePostgres
import NotificationWebCenter
import ServiceLifecycle

/// The HTTP JSON API of a server-mode worker: devices and their requests, over a ``DeviceScheduler``, behind a
/// bearer token. Served on Hummingbird 2, like the web center ("whatever serves HTTP is one stack").
///
/// Routes (JSON in and out; errors are `{"reason": "...", "detail": "..."}` with a 4xx status, and a refused request
/// changes nothing; a client limited to scopes, ``ServerAPIScopes``, gets 403 on the routes outside them):
///
/// | route | what it does |
/// |---|---|
/// | `GET /v1/status` | this worker's figures and the cluster's (``WorkerStatistics``, `ClusterStatistics`) |
/// | `GET /metrics` | the same in Prometheus's text format, with the newest pushes' figures |
/// | `GET /v1/devices` | every device (`?active=true`: active ones only) |
/// | `PUT /v1/devices/{id}` | registers or updates a device (`token`, `topic`, `environment`, `timeZone`, `locale`) |
/// | `GET /v1/devices/{id}` | the device |
/// | `DELETE /v1/devices/{id}` | removes the device and its pending requests |
/// | `POST /v1/devices/{id}/requests` | schedules a request for the device |
/// | `GET /v1/devices/{id}/requests` | the device's pending requests |
/// | `DELETE /v1/devices/{id}/requests/{identifier}` | cancels one |
/// | `POST /v1/requests` | schedules one request for many devices (`"atomic": true`: all or none) |
/// | `POST /v1/request-batches` | schedules many requests, each for its device (`"atomic": true`: all or none) |
///
/// The push service's routes (audiences, device checks, tag expressions) are added from `ServerAPI+Push.swift`
/// (docs/push-service.md), and its statistics pages for a browser (`/center`, HTML, with the web center's access
/// rules) from `ServerAPI+Center.swift`.
///
/// `docs/openapi/server-api.yaml` describes them; a test keeps it and the router's routes equal.
///
/// ```swift
/// let api = ServerAPI(devices: DeviceScheduler(store: store, scheduler: scheduler), token: "s3cret",
///                     configuration: ServerAPIConfiguration(host: "127.0.0.1", port: 0))
/// try await api.run { baseURL in print("API at \(baseURL)") }   // until the task is cancelled
/// ```
public struct ServerAPI: Sendable {
    let devices: DeviceScheduler
    let metrics: ServerMetrics
    /// The clients' bearer tokens (one or many, reloadable).
    public let credentials: ServerAPICredentials
    /// The browser sessions of the push statistics pages (`/center`), in memory: opened with a one-time link.
    let centerSessions = WebCenterSessions()
    /// The one-time links to the pages this worker handed out (`POST /v1/center-links`).
    let centerLinks = CenterLinks()
    /// Address and limits.
    public let configuration: ServerAPIConfiguration
    /// The TLS pair served when ``ServerAPIConfiguration/tls`` is set, reloadable; `nil` reads the files once when
    /// ``run(onListening:)`` starts.
    public let certificate: ServerAPICertificate?
    let logger: Logger

    /// Creates the API over a device scheduler, with one bearer token (its client is named
    /// ``ServerAPITokens/defaultClient``).
    ///
    /// - Parameters:
    ///   - devices: The device registry and scheduling API the routes call.
    ///   - token: The bearer token every request must bring.
    ///   - configuration: Address and limits.
    ///   - metrics: The worker's figures, for `/v1/status` and `/metrics` (its presenter's ``APNsPresenter/metrics``).
    ///   - logger: Where failures are logged.
    public init(
        devices: DeviceScheduler, token: String, configuration: ServerAPIConfiguration = ServerAPIConfiguration(),
        metrics: ServerMetrics = ServerMetrics(), logger: Logger = Logger(label: "unotifyd.api")
    ) {
        self.init(
            devices: devices, credentials: ServerAPICredentials(tokens: ServerAPITokens(token: token)),
            configuration: configuration, metrics: metrics, logger: logger)
    }

    /// Creates the API over a device scheduler, with each client's token (``ServerAPICredentials``, read from a
    /// file and reloaded on demand).
    ///
    /// - Parameters:
    ///   - devices: The device registry and scheduling API the routes call.
    ///   - credentials: The tokens a request may bring, each naming its client.
    ///   - configuration: Address, limits and TLS.
    ///   - metrics: The worker's figures, for `/v1/status` and `/metrics` (its presenter's ``APNsPresenter/metrics``);
    ///     the API's own requests are counted there too.
    ///   - certificate: The TLS pair to serve with ``ServerAPIConfiguration/tls``, which its owner may reload
    ///     (``ServerAPICertificate/reload()``: new connections get the new pair); `nil` reads the files of
    ///     ``ServerAPIConfiguration/tls`` once, when ``run(onListening:)`` starts.
    ///   - logger: Where failures are logged.
    ///
    /// ```swift
    /// let credentials = try ServerAPICredentials(file: "/etc/unotify/api.tokens")
    /// let api = ServerAPI(devices: devices, credentials: credentials)
    /// ```
    public init(
        devices: DeviceScheduler, credentials: ServerAPICredentials,
        configuration: ServerAPIConfiguration = ServerAPIConfiguration(), metrics: ServerMetrics = ServerMetrics(),
        certificate: ServerAPICertificate? = nil, logger: Logger = Logger(label: "unotifyd.api")
    ) {
        self.devices = devices
        self.metrics = metrics
        self.credentials = credentials
        self.configuration = configuration
        self.certificate = certificate
        self.logger = logger
    }

    /// The routes, behind the token check and the JSON error answers.
    public func router() -> Router<ServerAPIRequestContext> {
        let router = Router(context: ServerAPIRequestContext.self)
        let push = push
        // First, so it counts the answer the guard made of any error.
        router.add(middleware: ServerAPIMetricsMiddleware(metrics: metrics))
        router.add(
            middleware: ServerAPIGuard(credentials: credentials, logger: logger) { deviceID, token in
                try await push.checkCredential(deviceID: deviceID, token: token)
            })
        router.get("/v1/status") { _, _ in
            let now = devices.scheduler.clock.now
            let cluster = try await call { try await devices.store.clusterStatistics(at: now) }
            return Self.json(.ok, ServerAPIJSON.json(worker: metrics.snapshot(at: now), cluster: cluster))
        }
        router.get("/metrics") { _, _ in
            let cluster = try await call { try await devices.store.clusterStatistics(at: devices.scheduler.clock.now) }
            // The newest pushes' figures, read now (exact, as GET /v1/pushes/{messageId} answers them).
            let pushes = try await call {
                var pushes: [PushStatistics] = []
                for id in try await devices.store.newestPushIDs(limit: ServerMetrics.pushesExported) {
                    if let statistics = try await devices.store.pushStatistics(id: id) { pushes.append(statistics) }
                }
                return pushes
            }
            // Each topic's sums (by name, the first ``ServerMetrics/topicsExported``).
            let topics = try await call {
                var topics: [(topic: String, statistics: PushStatistics)] = []
                for topic in try await devices.store.deviceTopics(limit: ServerMetrics.topicsExported) {
                    topics.append((topic, try await devices.store.pushStatistics(topic: topic)))
                }
                return topics
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: metrics.exposition(cluster: cluster, pushes: pushes, topics: topics))))
        }
        router.get("/v1/devices") { request, _ in
            let active = request.uri.queryParameters.get("active")
            guard active == nil || active == "true" || active == "false" else {
                throw ServerAPIError.badRequest("active must be true or false")
            }
            let list = try await call { try await devices.devices(activeOnly: active == "true") }
            return Self.json(.ok, ["devices": list.sorted { $0.id < $1.id }.map(ServerAPIJSON.json)])
        }
        router.put("/v1/devices/:id") { request, context in
            let id = try Self.parameter("id", context)
            let registration = try ServerAPIJSON.registration(id: id, try await body(request))
            let device = try await call { try await devices.register(registration) }
            return Self.json(.ok, ServerAPIJSON.json(device))
        }
        router.get("/v1/devices/:id") { _, context in
            let id = try Self.parameter("id", context)
            guard let device = try await call({ try await devices.device(id: id) }) else { throw Self.unknown(id) }
            return Self.json(.ok, ServerAPIJSON.json(device))
        }
        router.delete("/v1/devices/:id") { _, context in
            let id = try Self.parameter("id", context)
            try await call { try await devices.remove(deviceID: id) }
            return Response(status: .noContent)
        }
        router.post("/v1/devices/:id/requests") { request, context in
            let id = try Self.parameter("id", context)
            let spec = try ServerAPIJSON.request(try await body(request), path: "")
            try await call { try await devices.schedule(spec, forDevice: id) }
            let pending = try await call { try await devices.pendingRequests(forDevice: id) }
            guard let stored = pending.first(where: { $0.identifier == spec.identifier }) else {
                // Delivered at once (no trigger) or already fired: accepted, nothing pending to show.
                return Self.json(.accepted, ["identifier": spec.identifier])
            }
            return Self.json(.created, ServerAPIJSON.json(stored))
        }
        router.get("/v1/devices/:id/requests") { _, context in
            let id = try Self.parameter("id", context)
            let pending = try await call { try await devices.pendingRequests(forDevice: id) }
            return Self.json(
                .ok, ["requests": pending.sorted { $0.identifier < $1.identifier }.map(ServerAPIJSON.json)])
        }
        router.delete("/v1/devices/:id/requests/:identifier") { _, context in
            let id = try Self.parameter("id", context)
            let identifier = try Self.parameter("identifier", context)
            let pending = try await call { try await devices.pendingRequests(forDevice: id) }
            guard pending.contains(where: { $0.identifier == identifier }) else {
                throw ServerAPIError(
                    .notFound, reason: "UnknownRequest",
                    detail: "device '\(id)' has no pending request '\(identifier)'")
            }
            try await call { try await devices.cancel(identifiers: [identifier], forDevice: id) }
            return Response(status: .noContent)
        }
        router.post("/v1/requests") { request, _ in
            let object = try await body(request)
            if let unknown = object.keys.sorted().first(where: { !["devices", "target", "request", "atomic"].contains($0) }) {
                throw ServerAPIError.badRequest("\(unknown) is not a field this route takes")
            }
            guard let requestObject = object["request"] as? [String: Any] else {
                throw ServerAPIError.badRequest("request must be an object")
            }
            if let targetValue = object["target"] {
                guard object["devices"] == nil else { throw ServerAPIError.badRequest("give devices or target, not both") }
                guard object["atomic"] == nil else {
                    throw ServerAPIError.badRequest("atomic takes a list of devices, not a target")
                }
                let target = try PushJSON.target(targetValue, path: "target")
                let spec = try ServerAPIJSON.request(requestObject, path: "request.")
                return Self.audienceAnswer(try await call { try await devices.schedule(spec, for: target) })
            }
            guard let ids = object["devices"] as? [String], !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty }) else {
                throw ServerAPIError.badRequest("devices must be a non-empty array of device identifiers (or give target)")
            }
            let atomic = try ServerAPIJSON.boolean(object, "atomic", path: "") ?? false
            let spec = try ServerAPIJSON.request(requestObject, path: "request.")
            if atomic { return try await scheduleAll(spec, forDevices: Array(Set(ids)).sorted()) }
            let failures = await devices.schedule(spec, forDevices: Array(Set(ids)))
            var failed: [String: Any] = [:]
            for (id, error) in failures {
                let answer = Self.apiError(error)
                failed[id] = ["reason": answer.reason, "detail": answer.detail]
            }
            let scheduled = Set(ids).subtracting(failures.keys).sorted()
            return Self.json(
                failures.isEmpty ? .ok : HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"),
                ["scheduled": scheduled, "failed": failed])
        }
        router.post("/v1/request-batches") { request, _ in
            let object = try await body(request, limit: configuration.maximumBatchBodySize)
            let requests = try ServerAPIJSON.deviceRequests(object, limit: configuration.maximumBatchCount)
            if try ServerAPIJSON.boolean(object, "atomic", path: "") == true {
                return try await scheduleAll(requests)
            }
            let failures = await devices.schedule(requests)
            return Self.json(
                failures.isEmpty ? .ok : HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"),
                ["scheduled": requests.count - failures.count, "failed": Self.failed(failures, of: requests)])
        }
        addPushRoutes(to: router)
        addCenterRoutes(to: router)
        return router
    }

    /// Serves until the calling task is cancelled: HTTPS with ``ServerAPIConfiguration/tls``, plain HTTP otherwise
    /// (with a warning in the log when the host is beyond loopback: the bearer tokens then cross the network in clear).
    ///
    /// - Parameter onListening: Called once the API listens, with its base URL (`http://host:port/`, or
    ///   `https://host:port/` with TLS).
    /// - Throws: ``ServerAPIError`` for a host beyond loopback without ``ServerAPIConfiguration/allowsRemote``, or
    ///   TLS files that cannot be read or used (`BadTLSConfiguration`); what binding throws (a port in use).
    public func run(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        guard configuration.isLoopback || configuration.allowsRemote else {
            throw ServerAPIError(
                .internalServerError, reason: "BadAddress",
                detail: "\(configuration.host) is not a loopback address: the API needs --api-allow-remote")
        }
        let server: HTTPServerBuilder
        let scheme: String
        if let tls = configuration.tls {
            let certificate = try self.certificate ?? ServerAPICertificate(tls)
            server = try .tls(.http1(), tlsConfiguration: certificate.serverConfiguration())
            scheme = "https"
        } else {
            server = .http1()
            scheme = "http"
            if !configuration.isLoopback {
                logger.warning(
                    """
                    the server API listens beyond loopback without TLS: bearer tokens and data cross the network in \
                    clear (give --api-tls-certificate and --api-tls-key, or put a TLS proxy in front)
                    """,
                    metadata: ["host": "\(configuration.host)"])
            }
        }
        let host = configuration.host
        let application = Application(
            router: router(), server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { [configuration] channel in
                let port = channel.localAddress?.port ?? configuration.port
                await onListening("\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)/")
            },
            logger: logger)
        // As the web center: cancelling the calling task shuts the server down gracefully, requests in flight finish.
        let group = ServiceGroup(services: [application], logger: logger)
        let serving = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await serving.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    // MARK: - Helpers

    /// `POST /v1/request-batches` with `"atomic": true`: 200 when every request was stored in one transaction; 422
    /// `BatchRefused` naming every refused request when one was refused, 503 `StoreUnavailable` when the store failed
    /// (nothing stored in both cases; the answer says `"atomic": true` and `"scheduled": 0`).
    func scheduleAll(_ requests: [DeviceRequest]) async throws -> Response {
        do {
            try await devices.scheduleAll(requests)
            return Self.json(.ok, ["atomic": true, "scheduled": requests.count, "failed": [Any]()])
        } catch let error as DeviceBatchError {
            return Self.json(
                .unprocessableContent,
                [
                    "reason": "BatchRefused",
                    "detail": "\(error.refusals.count) of \(requests.count) requests refused: nothing was stored",
                    "atomic": true, "scheduled": 0, "failed": Self.failed(error.refusals, of: requests),
                ])
        } catch {
            let answer = Self.apiError(error)
            return Self.json(
                answer.status,
                [
                    "reason": answer.reason,
                    "detail": """
                    \(answer.detail) (an atomic batch: nothing was stored, or all of it if the connection was lost \
                    during the commit; sending it again is safe, each request replaces the one with its identifier)
                    """,
                    "atomic": true, "scheduled": 0,
                ])
        }
    }

    /// `POST /v1/requests` with `"atomic": true`: the request for every device or for none, in one transaction (as
    /// ``scheduleAll(_:)``): 200 `{"atomic": true, "scheduled": [...], "failed": {}}`; 422 `BatchRefused` with
    /// `failed` naming each device refused and why, `"scheduled": []`; 503 with nothing stored.
    func scheduleAll(_ spec: RequestSpec, forDevices ids: [String]) async throws -> Response {
        let requests = ids.map { DeviceRequest(deviceID: $0, spec: spec) }
        do {
            try await devices.scheduleAll(requests)
            return Self.json(.ok, ["atomic": true, "scheduled": ids, "failed": [String: Any]()])
        } catch let error as DeviceBatchError {
            var failed: [String: Any] = [:]
            for (index, refusal) in error.refusals {
                let answer = Self.apiError(refusal)
                failed[ids[index]] = ["reason": answer.reason, "detail": answer.detail]
            }
            return Self.json(
                .unprocessableContent,
                [
                    "reason": "BatchRefused",
                    "detail": "refused for \(error.refusals.count) of \(ids.count) devices: nothing was stored",
                    "atomic": true, "scheduled": [String](), "failed": failed,
                ])
        } catch {
            let answer = Self.apiError(error)
            return Self.json(
                answer.status,
                [
                    "reason": answer.reason,
                    "detail": """
                    \(answer.detail) (atomic: nothing was stored, or all of it if the connection was lost during the \
                    commit)
                    """,
                    "atomic": true, "scheduled": [String](),
                ])
        }
    }

    /// The failed requests of a batch as its answer lists them: index, device, identifier, reason and detail.
    static func failed(_ failures: [Int: any Error], of requests: [DeviceRequest]) -> [[String: Any]] {
        failures.keys.sorted().map { index in
            let answer = Self.apiError(failures[index]!)
            return [
                "index": index, "device": requests[index].deviceID, "identifier": requests[index].spec.identifier,
                "reason": answer.reason, "detail": answer.detail,
            ]
        }
    }

    /// The body as a JSON object, refused with 413 beyond `limit` (by default ``ServerAPIConfiguration/maximumBodySize``).
    func body(_ request: Request, limit: Int? = nil) async throws -> [String: Any] {
        let limit = limit ?? configuration.maximumBodySize
        let tooLarge = ServerAPIError(
            .contentTooLarge, reason: "PayloadTooLarge", detail: "the body is larger than \(limit) bytes")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw tooLarge }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch let error as HTTPError
            where error.status == .contentTooLarge
        {
            throw tooLarge
        }
        return try ServerAPIJSON.object(Data(buffer.readableBytesView))
    }

    /// Runs a device-scheduler call, turning its errors into API errors.
    func call<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw Self.apiError(error) }
    }

    /// The API error for an error of the device scheduler, the engine or the store.
    static func apiError(_ error: any Error) -> ServerAPIError {
        switch error {
        case let error as ServerAPIError: return error
        case let error as DeviceError:
            switch error.code {
            case .unknownDevice: return ServerAPIError(.notFound, reason: "UnknownDevice", detail: error.message)
            case .inactiveDevice: return ServerAPIError(.conflict, reason: "InactiveDevice", detail: error.message)
            default:
                let name = error.code.description
                return ServerAPIError(
                    .badRequest, reason: name.prefix(1).uppercased() + name.dropFirst(), detail: error.message)
            }
        case let error as EngineError:
            switch error.code {
            case .invalidTrigger, .invalidNoDate:
                return ServerAPIError(.badRequest, reason: "InvalidTrigger", detail: error.message)
            case .storeFailure, .unavailable:
                return ServerAPIError(.serviceUnavailable, reason: "StoreUnavailable", detail: error.message)
            default:
                return ServerAPIError(.badRequest, reason: "InvalidRequest", detail: error.message)
            }
        default:
            return ServerAPIError(.serviceUnavailable, reason: "StoreUnavailable", detail: "\(error)")
        }
    }

    /// A path parameter, percent-decoded (Hummingbird gives them as sent): `phone%201` is the device `phone 1`, and
    /// an identifier with a `/` is reached as `%2F`.
    static func parameter(_ name: String, _ context: ServerAPIRequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        guard let decoded = raw.removingPercentEncoding else {
            throw ServerAPIError.badRequest("the \(name) in the path is not valid percent-encoding: \(raw)")
        }
        return decoded
    }

    /// The route a request went to, as the logs and the metrics name it: the method and the route's pattern
    /// (`PUT /v1/devices/{id}`), or `unmatched` for a path or method no route serves, so the names stay few whatever
    /// paths clients send.
    ///
    /// - Parameter endpointPath: The context's `endpointPath` once the router ran (`NotFound` or `nil` without a
    ///   route).
    static func routeName(_ request: Request, endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "unmatched" }
        return "\(request.method) \(endpointPath)"
    }

    static func unknown(_ id: String) -> ServerAPIError {
        ServerAPIError(.notFound, reason: "UnknownDevice", detail: "no device has the identifier '\(id)'")
    }

    static func json(_ status: HTTPResponse.Status, _ value: Any) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: ServerAPIJSON.encode(value))))
    }
}
