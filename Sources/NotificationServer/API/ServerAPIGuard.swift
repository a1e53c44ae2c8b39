import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The middleware in front of every server API route: checks `Authorization: Bearer <token>` (401 otherwise) and
/// turns every error into a JSON answer `{"reason": "...", "detail": "..."}`, so a client never gets HTML or an
/// empty body.
struct ServerAPIGuard: RouterMiddleware {
    typealias Context = ServerAPIRequestContext
    let token: String
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            // The push service's receipts come from devices, with the device's own token (checked by the route).
            if ServerAPI.usesDeviceCredential(request) { return try await next(request, context) }
            // The statistics pages for a browser have the web center's rules (a cookie opened by a link).
            if ServerAPI.isCenterPath(request.uri.path) { return try await next(request, context) }
            guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
                Self.constantTimeEqual(Array(authorization.utf8.dropFirst("Bearer ".count)), Array(token.utf8))
            else {
                throw ServerAPIError(
                    .unauthorized, reason: "Unauthorized", detail: "send Authorization: Bearer <token>")
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
