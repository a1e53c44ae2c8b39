import Foundation
import NotificationModel

/// What the endpoint answers: 200 with an empty body, or an error status with `{"reason": …}`; always with the
/// `apns-id` header.
public struct APNsResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The value of the `apns-id` response header.
    public var apnsID: String
    /// The reason of an error; `nil` for 200.
    public var reason: APNsReason?

    /// A success.
    public static func success(apnsID: String) -> APNsResponse {
        APNsResponse(status: 200, apnsID: apnsID, reason: nil)
    }

    /// An error answer.
    public init(reason: APNsReason, apnsID: String) {
        self.init(status: reason.status, apnsID: apnsID, reason: reason)
    }

    private init(status: Int, apnsID: String, reason: APNsReason?) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
    }

    /// The body: empty for 200, the reason's JSON otherwise.
    public var body: Data { reason?.responseBody ?? Data() }

    /// The response headers: `apns-id`, and `content-type` for an error body.
    public var headers: [(name: String, value: String)] {
        var result = [(name: "apns-id", value: apnsID)]
        if reason != nil { result.append((name: "content-type", value: "application/json")) }
        return result
    }
}
