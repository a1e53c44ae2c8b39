import Foundation
import HTTPTypes
import Hummingbird
import NotificationStorePostgres

// The push service's routes (issue 20, docs/push-service.md), registered by `ServerAPI.router()` behind the same
// token check and JSON errors as the device routes.
extension ServerAPI {
    /// The push service on the API's store.
    var push: PushService { PushService(store: devices.store, clock: devices.scheduler.clock) }

    /// Adds the audience, device-check and tag-expression routes.
    func addPushRoutes(to router: Router<ServerAPIRequestContext>) {
        let push = push
        router.put("/v1/devices/:id/account") { request, context in
            let id = try Self.parameter("id", context)
            let object = try await body(request)
            try Self.refuseUnknown(object, allowed: ["account"])
            guard let account = object["account"] as? String else {
                throw ServerAPIError.badRequest("account is required (a string)")
            }
            let audience = try await call { try await push.bindAccount(account, deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.delete("/v1/devices/:id/account") { _, context in
            let id = try Self.parameter("id", context)
            let audience = try await call { try await push.unbindAccount(deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.post("/v1/devices/:id/aliases") { request, context in
            let id = try Self.parameter("id", context)
            let aliases = try Self.names(try await body(request), "aliases")
            let audience = try await call { try await push.bindAliases(aliases, deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.delete("/v1/devices/:id/aliases/:alias") { _, context in
            let id = try Self.parameter("id", context)
            let alias = try Self.parameter("alias", context)
            let audience = try await call { try await push.unbindAliases([alias], deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.post("/v1/devices/:id/tags") { request, context in
            let id = try Self.parameter("id", context)
            let tags = try Self.names(try await body(request), "tags")
            let audience = try await call { try await push.bindTags(tags, deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.delete("/v1/devices/:id/tags/:tag") { _, context in
            let id = try Self.parameter("id", context)
            let tag = try Self.parameter("tag", context)
            let audience = try await call { try await push.unbindTags([tag], deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.get("/v1/devices/:id/audience") { _, context in
            let id = try Self.parameter("id", context)
            let audience = try await call { try await push.audience(deviceID: id) }
            return Self.json(.ok, Self.json(audience))
        }
        router.get("/v1/accounts/:account/devices") { request, context in
            let account = try Self.parameter("account", context)
            let after = request.uri.queryParameters["after"].map(String.init)
            let devices = try await call { try await push.devices(account: account, after: after) }
            return Self.json(.ok, Self.page(devices))
        }
        router.get("/v1/aliases/:alias/devices") { request, context in
            let alias = try Self.parameter("alias", context)
            let after = request.uri.queryParameters["after"].map(String.init)
            let devices = try await call { try await push.devices(alias: alias, after: after) }
            return Self.json(.ok, Self.page(devices))
        }
        router.post("/v1/device-checks") { request, _ in
            let object = try await body(request)
            try Self.refuseUnknown(object, allowed: ["devices"])
            guard let ids = object["devices"] as? [String], !ids.isEmpty else {
                throw ServerAPIError.badRequest("devices must be a non-empty array of device identifiers")
            }
            let checks = try await call { try await push.checkDevices(ids: ids) }
            return Self.json(.ok, ["devices": checks.map(Self.json)])
        }
        router.post("/v1/audience-counts") { request, _ in
            let object = try await body(request)
            try Self.refuseUnknown(object, allowed: ["tag"])
            guard let value = object["tag"] else {
                throw ServerAPIError.badRequest("tag is required (a tag expression)")
            }
            let expression = try Self.tagExpression(value, path: "tag")
            let count = try await call { try await push.deviceCount(matching: expression) }
            return Self.json(.ok, ["devices": count])
        }
        addPushMessageRoutes(to: router, push: push)
    }

    /// Adds the routes of pushes and their statistics.
    func addPushMessageRoutes(to router: Router<ServerAPIRequestContext>, push: PushService) {
        router.post("/v1/pushes") { request, _ in
            let message = try PushJSON.push(try await body(request), path: "", now: push.clock.now)
            _ = try await Self.pushCall { try await push.send([message]) }
            return Self.json(.accepted, ["messageId": message.id])
        }
        router.post("/v1/mass-pushes") { request, _ in
            let object = try await body(request)
            try Self.refuseUnknown(object, allowed: ["pushes"])
            guard let list = object["pushes"] as? [Any], !list.isEmpty else {
                throw ServerAPIError.badRequest("pushes must be a non-empty array of pushes")
            }
            guard list.count <= PostgresNotificationStore.maximumPushesPerCall else {
                throw ServerAPIError(
                    .badRequest, reason: "TooManyPushes",
                    detail:
                        "\(list.count) pushes: a mass push carries at most \(PostgresNotificationStore.maximumPushesPerCall)"
                )
            }
            let now = push.clock.now
            let messages = try list.enumerated().map { index, value in
                guard let object = value as? [String: Any] else {
                    throw ServerAPIError.badRequest("pushes[\(index)] must be an object")
                }
                return try PushJSON.push(object, path: "pushes[\(index)].", now: now)
            }
            let ids = try await Self.pushCall { try await push.send(messages) }
            return Self.json(.accepted, ["messageIds": ids])
        }
        router.get("/v1/pushes/:messageId") { _, context in
            let id = try Self.parameter("messageId", context)
            guard let message = try await Self.pushCall({ try await push.push(id: id) }) else {
                throw Self.unknownMessage(id)
            }
            let statistics = try await Self.pushCall { try await push.statistics(id: id) }
            return Self.json(.ok, PushJSON.json(message, statistics))
        }
        router.delete("/v1/pushes/:messageId") { _, context in
            let id = try Self.parameter("messageId", context)
            let removed = try await Self.pushCall { try await push.cancel(id: id) }
            return Self.json(.ok, ["messageId": id, "cancelled": removed])
        }
        addReceiptRoute(to: router, push: push)
        router.get("/v1/topics/:topic/statistics") { _, context in
            let topic = try Self.parameter("topic", context)
            let statistics = try await Self.pushCall { try await push.statistics(topic: topic) }
            return Self.json(.ok, PushJSON.json(statistics))
        }
    }

    /// Whether a request is one whose credential is the device's own token rather than the backend's
    /// (`POST /v1/devices/{id}/receipts`): ``ServerAPIGuard`` lets it through, and the route checks the token.
    static func usesDeviceCredential(_ request: Request) -> Bool {
        let path = request.uri.path
        return request.method == .post && path.hasPrefix("/v1/devices/") && path.hasSuffix("/receipts")
            && path.split(separator: "/", omittingEmptySubsequences: false).count == 5
    }

    /// The device a request names when it is one of that device's own audience routes, which take the device's APNs
    /// token as well as the backend's (``ServerAPIGuard`` checks it): `PUT`/`DELETE /v1/devices/{id}/account`,
    /// `POST /v1/devices/{id}/aliases` and `.../tags`, `DELETE .../aliases/{alias}` and `.../tags/{tag}`, and
    /// `GET .../audience`. `nil` for every other request: routes that span devices (lists, device checks, audience
    /// counts, pushes) stay the backend's.
    ///
    /// The identifier is percent-decoded as the route's own parameter is (``parameter(_:_:)``), so the device the
    /// token is checked for is the device the route acts on.
    static func deviceCredentialDevice(_ request: Request) -> String? {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5 || parts.count == 6, parts[0].isEmpty, parts[1] == "v1", parts[2] == "devices",
            !parts[3].isEmpty, let deviceID = String(parts[3]).removingPercentEncoding, !deviceID.isEmpty
        else { return nil }
        let method = request.method
        switch (parts[4], parts.count) {
        case ("account", 5): guard method == .put || method == .delete else { return nil }
        case ("aliases", 5), ("tags", 5): guard method == .post else { return nil }
        case ("aliases", 6), ("tags", 6): guard method == .delete, !parts[5].isEmpty else { return nil }
        case ("audience", 5): guard method == .get else { return nil }
        default: return nil
        }
        return deviceID
    }

    /// Adds `POST /v1/devices/{id}/receipts`: a device's receipts, with `Authorization: Bearer <its APNs token>`.
    func addReceiptRoute(to router: Router<ServerAPIRequestContext>, push: PushService) {
        router.post("/v1/devices/:id/receipts") { request, context in
            let deviceID = try Self.parameter("id", context)
            let unauthorized = ServerAPIError(
                .unauthorized, reason: "Unauthorized",
                detail: "send Authorization: Bearer <the device's token>, the token registered for the device")
            guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else {
                throw unauthorized
            }
            let token = String(authorization.dropFirst("Bearer ".count))
            // The credential first: a caller without it learns nothing of the body's problems.
            do { try await push.checkCredential(deviceID: deviceID, token: token) } catch let error as PushError
                where error.code == .unauthorizedDevice
            {
                throw unauthorized
            } catch {
                throw Self.pushError(error)
            }
            let object = try await body(request)
            try Self.refuseUnknown(object, allowed: ["receipts"])
            guard let list = object["receipts"] as? [Any], !list.isEmpty else {
                throw ServerAPIError.badRequest("receipts must be a non-empty array of receipts")
            }
            let now = push.clock.now
            let receipts = try list.enumerated().map { index, value in
                try PushJSON.receipt(value, path: "receipts[\(index)]", now: now)
            }
            let result = try await Self.pushCall {
                try await push.recordReceipts(receipts, deviceID: deviceID, token: token)
            }
            return Self.json(
                .ok,
                [
                    "recorded": result.recorded, "duplicates": result.duplicates,
                    "unknownMessages": result.unknownMessages,
                ])
        }
    }

    /// Runs a push-service call, turning its errors into API errors.
    static func pushCall<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw pushError(error) }
    }

    /// The API error for an error of the push service, the store or the engine.
    static func pushError(_ error: any Error) -> ServerAPIError {
        guard let error = error as? PushError else { return apiError(error) }
        switch error.code {
        case .unknownMessage: return ServerAPIError(.notFound, reason: "UnknownMessage", detail: error.message)
        case .alreadySent: return ServerAPIError(.conflict, reason: "AlreadySent", detail: error.message)
        case .duplicateMessage: return ServerAPIError(.conflict, reason: "DuplicateMessage", detail: error.message)
        case .unauthorizedDevice: return ServerAPIError(.unauthorized, reason: "Unauthorized", detail: error.message)
        default:
            let name = error.code.description
            return ServerAPIError(
                .badRequest, reason: name.prefix(1).uppercased() + name.dropFirst(), detail: error.message)
        }
    }

    static func unknownMessage(_ id: String) -> ServerAPIError {
        ServerAPIError(.notFound, reason: "UnknownMessage", detail: "no push has the message identifier '\(id)'")
    }

    // MARK: - JSON

    /// A tag expression from a body's field, refused with 400 `InvalidTagExpression` naming where and why.
    static func tagExpression(_ value: Any, path: String) throws -> TagExpression {
        do { return try TagExpression(json: value, path: path) } catch {
            throw ServerAPIError(.badRequest, reason: "InvalidTagExpression", detail: error.description)
        }
    }

    /// A non-empty array of names from a body `{"<key>": [...]}`.
    static func names(_ object: [String: Any], _ key: String) throws -> [String] {
        try refuseUnknown(object, allowed: [key])
        guard let names = object[key] as? [String], !names.isEmpty else {
            throw ServerAPIError.badRequest("\(key) must be a non-empty array of strings")
        }
        return names
    }

    static func refuseUnknown(_ object: [String: Any], allowed: Set<String>) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ServerAPIError.badRequest("\(unknown) is not a field this route takes")
        }
    }

    static func json(_ audience: DeviceAudience) -> [String: Any] {
        var object: [String: Any] = ["device": audience.deviceID, "aliases": audience.aliases, "tags": audience.tags]
        object["account"] = audience.account ?? NSNull()
        return object
    }

    static func json(_ check: DeviceCheck) -> [String: Any] {
        var object: [String: Any] = ["id": check.deviceID, "known": check.isKnown, "active": check.isActive]
        if let zone = check.timeZoneIdentifier { object["timeZone"] = zone }
        if let topic = check.topic { object["topic"] = topic }
        if let date = check.lastRegisteredAt { object["lastRegisteredAt"] = date.ISO8601Format() }
        return object
    }

    /// A page of devices; `next` is the cursor of the next page (`?after=`) when the page is full.
    static func page(_ devices: [Device]) -> [String: Any] {
        var object: [String: Any] = ["devices": devices.map(ServerAPIJSON.json)]
        if devices.count == AudienceLimits.devicesPerPage, let last = devices.last { object["next"] = last.id }
        return object
    }
}
