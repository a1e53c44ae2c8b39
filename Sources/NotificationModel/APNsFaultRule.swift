import Foundation

/// A failure the APNs endpoint produces on purpose, so that a provider's retry, backoff and cleanup code can be tested
/// against it: answer a reason (`TooManyRequests`, `ServiceUnavailable`, `Unregistered`, ...) and/or wait before
/// answering, for the requests that match, or a fraction of them.
///
/// Rules live in the store (`unotify apns fault add`), so the daemon's endpoint applies what any process set. The
/// first matching rule that fires decides; a rule whose fraction skips a request lets the next rule decide.
///
/// ```swift
/// let rule = try APNsFaultRule(id: "busy", reason: "TooManyRequests", topic: "com.example.app", fraction: 0.25, seed: 7)
/// ```
public struct APNsFaultRule: Sendable, Hashable, Codable {
    /// The rule's name, unique among the rules.
    public var id: String
    /// The reason answered (one of Apple's, such as `TooManyRequests`); `nil` answers as usual after ``delay``.
    public var reason: String?
    /// Seconds to wait before answering (or before the usual answer).
    public var delay: TimeInterval
    /// Only requests with this `apns-topic`; `nil` matches any.
    public var topic: String?
    /// Only requests to this device token (hex, any case); `nil` matches any.
    public var token: String?
    /// The share of matching requests the rule applies to, 0 (exclusive) to 1.
    public var fraction: Double
    /// Seeds the choice of requests when ``fraction`` is below 1: the same seed picks the same requests in the same
    /// order of arrival.
    public var seed: UInt64

    /// Creates a rule.
    /// - Throws: ``APNsFaultRuleError`` for an unknown reason, a rule that does nothing, a fraction out of range, a
    ///   negative or too long delay, or a token that is not hex.
    public init(
        id: String, reason: String? = nil, delay: TimeInterval = 0, topic: String? = nil, token: String? = nil,
        fraction: Double = 1, seed: UInt64 = 0
    ) throws {
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw APNsFaultRuleError("a rule's id is letters, digits, '-', '_' or '.' (got '\(id)')")
        }
        if let reason, APNsReason.named(reason) == nil {
            throw APNsFaultRuleError(
                "unknown reason '\(reason)'; Apple's reasons are: "
                    + APNsReason.allReasons.map(\.reason).joined(separator: ", "))
        }
        guard delay >= 0, delay <= 600, delay.isFinite else {
            throw APNsFaultRuleError("a delay is 0 to 600 seconds (got \(delay))")
        }
        guard reason != nil || delay > 0 else { throw APNsFaultRuleError("a rule needs a reason, a delay or both") }
        guard fraction > 0, fraction <= 1 else { throw APNsFaultRuleError("a fraction is above 0 and at most 1 (got \(fraction))") }
        if let token, token.isEmpty || !token.allSatisfy(\.isHexDigit) {
            throw APNsFaultRuleError("a device token is hex digits (got '\(token)')")
        }
        self.id = id
        self.reason = reason
        self.delay = delay
        self.topic = topic
        self.token = token?.lowercased()
        self.fraction = fraction
        self.seed = seed
    }

    /// Whether a request with this topic and token is one the rule is about (before its fraction).
    public func matches(topic requestTopic: String?, token requestToken: Substring?) -> Bool {
        if let topic, topic != requestTopic { return false }
        if let token, token != requestToken?.lowercased() { return false }
        return true
    }

    /// The answer the rule gives, with its status.
    public var answer: APNsReason? { reason.flatMap(APNsReason.named) }
}

/// A fault rule that cannot be made.
public struct APNsFaultRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension APNsReason {
    /// The reason of Apple's table with this name, such as `TooManyRequests`.
    public static func named(_ name: String) -> APNsReason? {
        allReasons.first { $0.reason == name }
    }
}
