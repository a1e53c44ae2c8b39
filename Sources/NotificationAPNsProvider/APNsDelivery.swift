import Foundation
import NotificationModel

/// What became of one notification handed to ``APNsClient/send(_:)``: its final ``Outcome``, its `apns-id`, and
/// every answer it got on the way.
///
/// ```swift
/// let delivery = try await client.send(notification)
/// switch delivery.outcome {
/// case .delivered: markDelivered(delivery.apnsID)
/// case .deviceGone(_, let since): deactivate(device, unregisteredAt: since)    // 410: stop pushing to it
/// case .rejected(let answer): deadLetter(notification, reason: answer.reason)  // 4xx: never retried
/// case .gaveUp(let answer): retryLater(notification, after: answer)            // 429/5xx/connection, retries spent
/// }
/// ```
public struct APNsDelivery: Sendable, Hashable {
    /// How a notification ended, in the categories of Apple's "Handling notification responses from APNs".
    public enum Outcome: Sendable, Hashable {
        /// 200: APNs accepted the notification. `uniqueID` is the `apns-unique-id` header when the server sent one
        /// (Apple's development environment does, for the delivery log of its Push Notifications Console).
        case delivered(uniqueID: String?)
        /// 410 `Unregistered` or `ExpiredToken`: the token is no longer valid for the topic; stop sending to it.
        /// `since` is the answer's `timestamp`, when APNs last knew the token was valid, if it sent one.
        case deviceGone(reason: String, since: Date?)
        /// Any other 4xx (and 403 `ExpiredProviderToken` that a fresh token did not cure): the request itself is
        /// wrong, and sending it again would get the same answer. A dead letter, with the answer's reason.
        case rejected(Answer)
        /// 429, 5xx or connection failures on every attempt the ``APNsRetryPolicy`` allowed; the last one.
        case gaveUp(Answer)
    }

    /// One answer to one attempt: an HTTP status with APNs's reason, or a connection failure.
    public struct Answer: Sendable, Hashable, CustomStringConvertible {
        /// The HTTP status; `nil` when no answer came (connection refused or lost, TLS failure, timeout).
        public var status: Int?
        /// The `reason` of the JSON error body, as the server spelled it.
        public var reason: String?
        /// What went wrong on the connection, when ``status`` is `nil`.
        public var connectionError: String?

        /// Creates an answer.
        public init(status: Int?, reason: String? = nil, connectionError: String? = nil) {
            self.status = status
            self.reason = reason
            self.connectionError = connectionError
        }

        /// The reason as one of Apple's (``NotificationModel/APNsReason``), when it is one.
        public var knownReason: APNsReason? { reason.flatMap { APNsReason(reason: $0) } }

        public var description: String {
            guard let status else { return "no answer: \(connectionError ?? "connection failed")" }
            return reason.map { "\(status) \($0)" } ?? "\(status)"
        }
    }

    /// The `apns-id` sent on every attempt.
    public var apnsID: UUID
    /// How it ended.
    public var outcome: Outcome
    /// Every answer, in order, the last one included (a delivered notification's is a 200).
    public var answers: [Answer]

    /// How many requests were sent: retries and the one after a provider-token refresh included.
    public var attempts: Int { answers.count }

    /// Whether APNs accepted the notification.
    public var isDelivered: Bool {
        if case .delivered = outcome { return true }
        return false
    }

    /// Creates a delivery record.
    public init(apnsID: UUID, outcome: Outcome, answers: [Answer]) {
        self.apnsID = apnsID
        self.outcome = outcome
        self.answers = answers
    }
}
