import Foundation
import Testing

@testable import NotificationAPNsProvider

/// Apple's answers sorted in one table: every status and reason of "Handling notification responses from APNs".
@Suite("APNs answer classification")
struct APNsAnswerClassifierTests {
    typealias Verdict = APNsAnswerClassifier.Verdict

    @Test(
        "statuses and reasons to verdicts",
        arguments: [
            (200, nil, Verdict.delivered),
            (400, "BadDeviceToken", .permanent), (400, "DeviceTokenNotForTopic", .permanent),
            (400, "IdleTimeout", .permanent), (403, "InvalidProviderToken", .permanent),
            (403, "ExpiredProviderToken", .expiredProviderToken), (404, "BadPath", .permanent),
            (405, "MethodNotAllowed", .permanent), (413, "PayloadTooLarge", .permanent),
            (410, "Unregistered", .deviceGone(since: nil)), (410, "ExpiredToken", .deviceGone(since: nil)),
            (429, "TooManyRequests", .retry(retryAfter: nil)),
            (429, "TooManyProviderTokenUpdates", .retry(retryAfter: nil)),
            (500, "InternalServerError", .retry(retryAfter: nil)), (503, "ServiceUnavailable", .retry(retryAfter: nil)),
            (503, "Shutdown", .retry(retryAfter: nil)), (502, nil, .retry(retryAfter: nil)), (401, nil, .permanent),
        ] as [(Int, String?, Verdict)])
    func verdicts(_ status: Int, _ reason: String?, _ expected: Verdict) {
        #expect(
            APNsAnswerClassifier.verdict(status: status, reason: reason, timestamp: nil, retryAfter: nil) == expected)
    }

    @Test("a 410's timestamp is milliseconds since 1970; retry-after is kept for retries")
    func details() {
        #expect(
            APNsAnswerClassifier.verdict(
                status: 410, reason: "Unregistered", timestamp: 1_767_603_600_123, retryAfter: nil)
                == .deviceGone(since: Date(timeIntervalSince1970: 1_767_603_600.123)))
        #expect(
            APNsAnswerClassifier.verdict(status: 429, reason: "TooManyRequests", timestamp: nil, retryAfter: 7)
                == .retry(retryAfter: 7))
        #expect(APNsAnswerClassifier.retryAfter(" 12 ") == 12)
        #expect(APNsAnswerClassifier.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(APNsAnswerClassifier.retryAfter("-3") == nil)
    }

    @Test("error bodies: reason and timestamp, and nothing from an empty or foreign body")
    func bodies() {
        let gone = APNsAnswerClassifier.parseBody(Array(#"{"reason":"Unregistered","timestamp":1767603600123}"#.utf8))
        #expect(gone.reason == "Unregistered" && gone.timestamp == 1_767_603_600_123)
        let bad = APNsAnswerClassifier.parseBody(Array(#"{"reason":"BadTopic"}"#.utf8))
        #expect(bad.reason == "BadTopic" && bad.timestamp == nil)
        #expect(APNsAnswerClassifier.parseBody([UInt8]()) == (nil, nil))
        #expect(APNsAnswerClassifier.parseBody(Array("<html>502</html>".utf8)) == (nil, nil))
    }
}
