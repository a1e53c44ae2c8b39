import HTTPTypes
import Hummingbird

extension ServerAPI {
    /// The most failed devices `POST /v1/requests` with a `target` names; `failedCount` counts them all.
    static let namedFailuresLimit = 100

    /// The answer of `POST /v1/requests` with a `target`: `{"scheduled": N, "failedCount": M, "failed": {...}}`, 200
    /// when it was scheduled for every device the target reached, 207 otherwise (the first ``namedFailuresLimit``
    /// failed devices by identifier, with a reason and a detail each).
    static func audienceAnswer(_ report: DeviceScheduler.AudienceScheduling) -> Response {
        var failed: [String: Any] = [:]
        for id in report.failures.keys.sorted().prefix(namedFailuresLimit) {
            let answer = apiError(report.failures[id]!)
            failed[id] = ["reason": answer.reason, "detail": answer.detail]
        }
        return json(
            report.failures.isEmpty ? .ok : HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"),
            ["scheduled": report.scheduled, "failedCount": report.failures.count, "failed": failed])
    }
}
