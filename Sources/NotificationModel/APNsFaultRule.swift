import Foundation

/// A failure the APNs endpoint produces on purpose, so that a provider's retry, backoff and cleanup code can be tested
/// against it: answer a reason (`TooManyRequests`, `ServiceUnavailable`, `Unregistered`, ...) and/or wait before
/// answering, never answer, close the connection after some requests, or shut down (503 `Shutdown`, GOAWAY, new
/// connections refused), for the requests that match, or a fraction of them.
///
/// Rules live in the store (`unotify apns fault add`), so the daemon's endpoint applies what any process set. The
/// first matching rule that fires decides; a rule whose fraction skips a request lets the next rule decide.
///
/// ```swift
/// let rule = try APNsFaultRule(id: "busy", reason: "TooManyRequests", topic: "com.example.app", fraction: 0.25, seed: 7)
/// ```
public struct APNsFaultRule: Sendable, Hashable, Codable {
    /// What a rule does to the requests it picks.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        /// Answer ``APNsFaultRule/reason`` with its status, after ``APNsFaultRule/delay`` when there is one; or
        /// only wait the delay, then answer as usual.
        case answer
        /// Never answer: the request's stream stays open, unanswered, until the connection closes (the provider's
        /// own timeout has to fire).
        case hold
        /// Answer as usual; once a connection has had ``APNsFaultRule/count`` requests the rule picked, end it with
        /// a GOAWAY carrying ``APNsFaultRule/reason`` (`Shutdown` when there is none) and close it.
        case close
        /// Answer 503 `Shutdown` and end the connection with GOAWAY `Shutdown`; while the rule exists, close every
        /// new connection at once (whatever the rule's topic and token), as a host going down for maintenance.
        case shutdown
    }

    /// The rule's name, unique among the rules.
    public var id: String
    /// What the rule does; ``Action/answer`` for rules stored before there were others.
    public var action: Action
    /// The reason answered (one of Apple's, such as `TooManyRequests`); `nil` answers as usual after ``delay``.
    /// For ``Action/close``, the reason the GOAWAY carries.
    public var reason: String?
    /// For ``Action/close``: how many requests the rule picks on a connection before it ends it.
    public var count: Int?
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
        id: String, action: Action = .answer, reason: String? = nil, count: Int? = nil, delay: TimeInterval = 0,
        topic: String? = nil, token: String? = nil, fraction: Double = 1, seed: UInt64 = 0
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
        switch action {
        case .answer:
            guard reason != nil || delay > 0 else { throw APNsFaultRuleError("a rule needs a reason, a delay or both") }
        case .hold:
            guard reason == nil else { throw APNsFaultRuleError("a rule that holds requests answers no reason") }
        case .close:
            guard let count, count >= 1 else {
                throw APNsFaultRuleError("a rule that closes connections needs a count of requests, 1 or more")
            }
        case .shutdown:
            guard reason == nil || reason == "Shutdown" else {
                throw APNsFaultRuleError("a shutdown rule answers Shutdown, no other reason")
            }
        }
        if action != .close, count != nil {
            throw APNsFaultRuleError("only a rule that closes connections takes a count")
        }
        guard fraction > 0, fraction <= 1 else { throw APNsFaultRuleError("a fraction is above 0 and at most 1 (got \(fraction))") }
        if let token, token.isEmpty || !token.allSatisfy(\.isHexDigit) {
            throw APNsFaultRuleError("a device token is hex digits (got '\(token)')")
        }
        self.id = id
        self.action = action
        self.reason = action == .shutdown ? "Shutdown" : reason
        self.count = count
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

    /// The answer the rule gives, with its status (for ``Action/close``, the GOAWAY's reason).
    public var answer: APNsReason? { reason.flatMap(APNsReason.named) }

    /// Decodes the rules as a store keeps them: a JSON array, or nothing (`nil` or empty) for none.
    public static func decodeStored(_ stored: String?) throws -> [APNsFaultRule] {
        guard let stored, !stored.isEmpty else { return [] }
        return try JSONDecoder().decode([APNsFaultRule].self, from: Data(stored.utf8))
    }

    private enum CodingKeys: String, CodingKey { case id, action, reason, count, delay, topic, token, fraction, seed }

    /// Decodes a stored rule; rules stored before ``action`` existed answer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        action = try container.decodeIfPresent(Action.self, forKey: .action) ?? .answer
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        count = try container.decodeIfPresent(Int.self, forKey: .count)
        delay = try container.decode(TimeInterval.self, forKey: .delay)
        topic = try container.decodeIfPresent(String.self, forKey: .topic)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        fraction = try container.decode(Double.self, forKey: .fraction)
        seed = try container.decode(UInt64.self, forKey: .seed)
    }
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
