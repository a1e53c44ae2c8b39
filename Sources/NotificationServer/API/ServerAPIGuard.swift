import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NotificationModel
import NotificationStorePostgres

/// The middleware in front of every server API route: checks `Authorization: Bearer <token>` against every client's
/// token (``ServerAPICredentials``; 401 otherwise) and the route against the client's scopes
/// (``ServerAPI/requiredScopes(method:path:)``; 403 `Forbidden` outside them), puts the client's name into the
/// request's context and logger, and
/// turns every error into a JSON answer `{"reason": "...", "detail": "..."}`, so a client never gets HTML or an
/// empty body.
///
/// A device's own audience routes (``ServerAPI/deviceCredentialDevice(_:)``) also take the device's APNs token as the
/// bearer, checked in constant time against the token registered for the device named in the path: the app binds
/// itself without the backend's token, and a device token never reaches another device.
struct ServerAPIGuard: RouterMiddleware {
    typealias Context = ServerAPIRequestContext
    let credentials: ServerAPICredentials
    let logger: Logger
    /// Checks that a token (64 hex digits) is the one registered for a device; throws `PushError`
    /// (`unauthorizedDevice`) otherwise.
    let checkDevice: @Sendable (_ deviceID: String, _ token: String) async throws -> Void

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // Who sent it, once the token is checked (for the log of a failure).
        var client: String?
        do {
            // The push service's receipts come from devices, with the device's own token (checked by the route).
            if ServerAPI.usesDeviceCredential(request) { return try await next(request, context) }
            // The statistics pages for a browser have the web center's rules (a cookie opened by a link).
            if ServerAPI.isCenterPath(request.uri.path) { return try await next(request, context) }
            let unauthorized = ServerAPIError(
                .unauthorized, reason: "Unauthorized", detail: "send Authorization: Bearer <token>")
            guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else {
                throw unauthorized
            }
            let bearer = String(authorization.dropFirst("Bearer ".count))
            if let (name, scopes) = credentials.identify(presenting: bearer) {
                client = name
                let needed = ServerAPI.requiredScopes(method: request.method, path: request.uri.path)
                guard scopes.isSuperset(of: needed) else {
                    logger.debug(
                        "server API request refused: outside the client's scopes",
                        metadata: [
                            "method": "\(request.method)", "path": "\(request.uri.path)", "client": "\(name)",
                            "scopes": "\(scopes)",
                        ])
                    throw ServerAPIError(
                        .forbidden, reason: "Forbidden",
                        detail: """
                        the client '\(name)' has the scopes \(scopes); \(request.method) \(request.uri.path) needs \
                        \(needed.subtracting(scopes))
                        """)
                }
                return try await served(request, Self.context(context, client: name), next)
            }
            // A device on its own audience routes, with its APNs token.
            guard let deviceID = ServerAPI.deviceCredentialDevice(request), DeviceToken(hex: bearer) != nil else {
                logger.debug(
                    "server API request refused: no valid bearer token",
                    metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
                throw unauthorized
            }
            do { try await checkDevice(deviceID, bearer) } catch let error as PushError
                where error.code == .unauthorizedDevice
            {
                throw ServerAPIError(
                    .unauthorized, reason: "Unauthorized",
                    detail: "send Authorization: Bearer <token>, the backend's token or the device's registered token")
            } catch {
                throw ServerAPI.pushError(error)
            }
            client = "device:\(deviceID)"
            return try await served(request, Self.context(context, client: "device:\(deviceID)"), next)
        } catch let error as ServerAPIError {
            return Self.response(error)
        } catch let error as HTTPError {
            let reason =
                error.status == .notFound
                ? "NotFound"
                : error.status.reasonPhrase.replacingOccurrences(
                    of: " ", with: "")
            return Self.response(ServerAPIError(error.status, reason: reason, detail: error.body ?? "\(error.status)"))
        } catch {
            logger.error(
                "server API request failed",
                metadata: [
                    "error": "\(error)", "path": "\(request.uri.path)", "client": "\(client ?? "none")",
                ])
            return Self.response(
                ServerAPIError(.internalServerError, reason: "InternalServerError", detail: "\(error)"))
        }
    }

    /// Runs the route for a client whose token was accepted, and logs the answer at `debug` level with the client's
    /// name (a route's error is logged by the caller once it is an answer).
    private func served(
        _ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response = try await next(request, context)
        context.logger.debug(
            "server API request",
            metadata: [
                "route": "\(ServerAPI.routeName(request, endpointPath: context.endpointPath))",
                "status": "\(response.status.code)",
            ])
        return response
    }

    /// The context with the client's name in it and in its logger (the token itself is never logged).
    static func context(_ context: Context, client: String) -> Context {
        var context = context
        context.client = client
        context.logger[metadataKey: "client"] = .string(client)
        return context
    }

    /// The JSON answer for an error.
    static func response(_ error: ServerAPIError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if error.status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        let body = ServerAPIJSON.encode(["reason": error.reason, "detail": error.detail])
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Compares without stopping at the first difference, so the time taken does not tell how much was right.
    static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
