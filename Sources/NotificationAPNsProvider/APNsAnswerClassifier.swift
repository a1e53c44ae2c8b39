import Foundation

/// Sorts APNs's answers as Apple's "Handling notification responses from APNs" describes them: what was delivered,
/// what says the device is gone, what is wrong with the request and would be refused again, and what may succeed
/// later. One place, so that every caller handles an answer the same way.
enum APNsAnswerClassifier {
    /// What to do with one answer.
    enum Verdict: Sendable, Hashable {
        /// 200.
        case delivered
        /// 410: the token is no longer valid for the topic.
        case deviceGone(since: Date?)
        /// 403 `ExpiredProviderToken`: a new provider token may cure it, once.
        case expiredProviderToken
        /// Other 4xx: never retried.
        case permanent
        /// 429, 5xx: retried after a backoff (at least `retryAfter` seconds when the server said so).
        case retry(retryAfter: TimeInterval?)
    }

    /// The verdict on an HTTP answer.
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - reason: The body's `reason`.
    ///   - timestamp: The body's `timestamp`, milliseconds since 1970 (410 only).
    ///   - retryAfter: A `retry-after` header's seconds, if any.
    static func verdict(status: Int, reason: String?, timestamp: Int64?, retryAfter: TimeInterval?) -> Verdict {
        switch status {
        case 200..<300: return .delivered
        case 410: return .deviceGone(since: timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) })
        case 403 where reason == "ExpiredProviderToken": return .expiredProviderToken
        case 429, 500..<600: return .retry(retryAfter: retryAfter)
        default: return .permanent
        }
    }

    /// The `reason` and `timestamp` of an APNs error body; `nil`s for an empty or foreign body.
    static func parseBody(_ body: some Sequence<UInt8>) -> (reason: String?, timestamp: Int64?) {
        let data = Data(body)
        guard !data.isEmpty, let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return (nil, nil)
        }
        let reason = object["reason"] as? String
        var timestamp: Int64?
        if let number = object["timestamp"] as? NSNumber {
            timestamp = number.int64Value
        } else if let text = object["timestamp"] as? String {
            timestamp = Int64(text)
        }
        return (reason, timestamp)
    }

    /// A `retry-after` header in seconds (the HTTP-date form is not used by APNs and is ignored).
    static func retryAfter(_ value: String?) -> TimeInterval? {
        guard let value, let seconds = TimeInterval(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return seconds
    }
}
