import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NotificationModel
import NotificationStorePostgres

/// The middleware in front of every server API route: checks `Authorization: Bearer <token>` (401 otherwise) and
/// turns every error into a JSON answer `{"reason": "...", "detail": "..."}`, so a client never gets HTML or an
/// empty body.
///
/// A device's own audience routes (``ServerAPI/deviceCredentialDevice(_:)``) also take the device's APNs token as the
/// bearer, checked in constant time against the token registered for the device named in the path: the app binds
/// itself without the backend's token, and a device token never reaches another device.
struct ServerAPIGuard: RouterMiddleware {
    typealias Context = ServerAPIRequestContext
    let token: String
    let logger: Logger
    /// Checks that a token (64 hex digits) is the one registered for a device; throws `PushError`
    /// (`unauthorizedDevice`) otherwise.
    let checkDevice: @Sendable (_ deviceID: String, _ token: String) async throws -> Void

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
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
            if Self.constantTimeEqual(Array(bearer.utf8), Array(token.utf8)) { return try await next(request, context) }
            // A device on its own audience routes, with its APNs token.
            guard let deviceID = ServerAPI.deviceCredentialDevice(request), DeviceToken(hex: bearer) != nil else {
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
            return try await next(request, context)
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
            logger.error("server API request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return Self.response(
                ServerAPIError(.internalServerError, reason: "InternalServerError", detail: "\(error)"))
        }
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
