import Foundation

/// How an ``APNsClient`` retries the answers Apple says to retry (429, 500, 503, other 5xx) and connection
/// failures: exponential backoff with jitter, a cap on each delay, and a cap on attempts. Every retry carries the
/// same `apns-id`.
///
/// The delay before retry *n* (1 for the second attempt) is `min(maximumDelay, initialDelay × multiplierⁿ⁻¹)`,
/// shortened by a random fraction of up to ``jitter`` of itself, so that many clients refused at once do not come
/// back at once. A `retry-after` header in seconds, when the server sends one, lengthens the delay to it (still
/// capped by ``maximumDelay``).
///
/// ```swift
/// var policy = APNsRetryPolicy()
/// policy.maximumAttempts = 8
/// policy.maximumDelay = 60
/// ```
public struct APNsRetryPolicy: Sendable, Hashable {
    /// Requests per notification, the first one included; 1 never retries.
    public var maximumAttempts = 5
    /// The delay before the first retry, in seconds.
    public var initialDelay: TimeInterval = 0.5
    /// How much each delay grows over the one before.
    public var multiplier: Double = 2
    /// The longest delay, in seconds.
    public var maximumDelay: TimeInterval = 30
    /// The largest fraction of a delay taken off at random, from 0 (none) to 1.
    public var jitter: Double = 0.5

    /// Creates the default policy: 5 attempts, 0.5 s doubling up to 30 s, up to half of each taken off at random.
    public init() {}

    /// Checks the values.
    /// - Throws: ``APNsClientError/Code/invalidConfiguration`` naming the value out of range.
    func validate() throws(APNsClientError) {
        guard maximumAttempts >= 1 else {
            throw APNsClientError(.invalidConfiguration, "maximumAttempts must be at least 1, not \(maximumAttempts)")
        }
        guard initialDelay >= 0, maximumDelay >= initialDelay, multiplier >= 1, (0...1).contains(jitter) else {
            throw APNsClientError(
                .invalidConfiguration,
                "the retry delays need 0 <= initialDelay <= maximumDelay, multiplier >= 1 and jitter in 0...1")
        }
    }

    /// The delay before retry `retry` (1 for the second attempt).
    ///
    /// - Parameters:
    ///   - retry: Which retry, from 1.
    ///   - retryAfter: The server's `retry-after`, in seconds, if it sent one.
    ///   - random: A number in `0..<1` that picks the jitter.
    /// - Returns: The delay in seconds, at most ``maximumDelay``.
    public func delay(beforeRetry retry: Int, retryAfter: TimeInterval? = nil, random: Double) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        let full = min(maximumDelay, initialDelay * pow(multiplier, exponent))
        let jittered = full * (1 - jitter * min(max(random, 0), 1))
        return min(maximumDelay, max(jittered, retryAfter ?? 0))
    }
}
