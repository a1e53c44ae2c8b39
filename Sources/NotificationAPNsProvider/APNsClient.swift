import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NotificationEngine
import Synchronization

/// Sends notifications to APNs, or to any APNs-compatible endpoint, over HTTP/2 with token authentication.
///
/// One client keeps one pooled HTTP/2 connection per server (AsyncHTTPClient, TLS with ALPN) and sends many
/// notifications over it at once, as many as the server's `SETTINGS_MAX_CONCURRENT_STREAMS` allows; more wait for
/// a free stream. Every request carries a provider token from a ``ProviderTokenSigner`` (replaced every 50 minutes,
/// never more often than every 20). Answers are handled as Apple documents them (``APNsDelivery/Outcome``):
///
/// - 200: delivered.
/// - 410 `Unregistered` / `ExpiredToken`: the device is gone, with the answer's timestamp.
/// - 403 `ExpiredProviderToken`: the token is replaced once and the request sent again.
/// - other 4xx: rejected with the reason, never retried (a dead letter).
/// - 429, 500, 503 (any 5xx) and connection failures: retried after an exponential backoff with jitter
///   (``APNsRetryPolicy``), with the same `apns-id`, until the policy's attempts are spent.
///
/// ```swift
/// let key = try APNsSigningKey(p8File: "AuthKey_ABC123DEFG.p8", teamID: "DEF123GHIJ")
/// let client = try APNsClient(configuration: APNsClientConfiguration(server: .production), key: key)
/// let delivery = try await client.send(
///     APNsNotification(deviceToken: token, topic: "com.example.app", payload: Data(#"{"aps":{"alert":"Hi"}}"#.utf8)))
/// try await client.shutdown()
/// ```
///
/// Call ``shutdown()`` when done: it closes the connections and waits for them (a client released without it closes
/// them in the background).
public final class APNsClient: Sendable {
    /// How it connects and retries.
    public let configuration: APNsClientConfiguration
    /// The provider tokens it sends.
    public let signer: ProviderTokenSigner
    private let http: HTTPClient
    private let logger: Logger
    /// Jitter for the retry delays.
    private let random: Mutex<SplitMix64>
    private let isShutDown = Mutex(false)

    /// Creates a client; it connects on the first notification.
    ///
    /// - Parameters:
    ///   - configuration: The server, TLS, timeouts, retries and clock.
    ///   - key: The `.p8` key provider tokens are signed with.
    ///   - logger: Where retries and failures are logged (at debug and notice levels).
    /// - Throws: ``APNsClientError/Code/invalidConfiguration`` for a value out of range.
    public init(
        configuration: APNsClientConfiguration, key: APNsSigningKey,
        logger: Logger = Logger(label: "OpenUserNotifications.apns-client")
    ) throws(APNsClientError) {
        try configuration.validate()
        self.configuration = configuration
        self.signer = try ProviderTokenSigner(
            key: key, refreshInterval: configuration.tokenRefreshInterval, clock: configuration.clock)
        self.logger = logger
        self.random = Mutex(SplitMix64(seed: configuration.jitterSeed ?? UInt64.random(in: .min ... .max)))
        var http = HTTPClient.Configuration()
        http.tlsConfiguration = configuration.tls
        http.httpVersion = .automatic
        http.redirectConfiguration = .disallow
        http.decompression = .disabled
        http.timeout = .init(connect: Self.amount(configuration.connectTimeout))
        http.connectionPool = .init(idleTimeout: Self.amount(configuration.idleTimeout))
        // A failed connection fails its waiting requests at once: the retry policy, with its jitter and cap, is
        // the one place that decides when to try again.
        http.connectionPool.retryConnectionEstablishment = false
        self.http = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: http, backgroundActivityLogger: logger)
    }

    /// Sends one notification and follows it to its outcome: through retries, backoff waits and a provider-token
    /// refresh.
    ///
    /// - Parameter notification: The notification; its `apns-id` is generated when it has none.
    /// - Returns: The outcome, the `apns-id` and every answer.
    /// - Throws: ``APNsClientError`` when the notification is invalid (the payload over 4096 bytes, 5120 for
    ///   VoIP; not a JSON object; a bad token, topic or collapse identifier) or the client was shut down (also
    ///   while the notification was waiting to be retried);
    ///   `CancellationError` when the calling task is cancelled (also during a backoff wait); jwt-kit's error if
    ///   signing fails. Answers from the server are never thrown.
    public func send(_ notification: APNsNotification) async throws -> APNsDelivery {
        try notification.validate()
        guard !isShutDown.withLock({ $0 }) else { throw APNsClientError(.shutDown, "the APNs client was shut down") }
        let apnsID = notification.apnsID ?? UUID()
        let body = ByteBuffer(bytes: notification.payload)
        var answers: [APNsDelivery.Answer] = []
        var retries = 0
        var refreshedToken = false
        var token = try await signer.token()
        while true {
            let (answer, verdict, uniqueID) = await attempt(notification, apnsID: apnsID, body: body, token: token)
            answers.append(answer)
            switch verdict {
            case .delivered:
                return APNsDelivery(apnsID: apnsID, outcome: .delivered(uniqueID: uniqueID), answers: answers)
            case .deviceGone(let since):
                return APNsDelivery(
                    apnsID: apnsID, outcome: .deviceGone(reason: answer.reason ?? "Unregistered", since: since),
                    answers: answers)
            case .expiredProviderToken:
                if !refreshedToken, let fresh = try await signer.refresh(replacing: token) {
                    logger.debug(
                        "provider token expired; sending again with a new one",
                        metadata: ["apns-id": "\(apnsID.uuidString.lowercased())"])
                    refreshedToken = true
                    token = fresh
                    continue
                }
                return APNsDelivery(apnsID: apnsID, outcome: .rejected(answer), answers: answers)
            case .permanent:
                return APNsDelivery(apnsID: apnsID, outcome: .rejected(answer), answers: answers)
            case .retry(let retryAfter):
                try Task.checkCancellation()
                // Shut down while this notification was in flight: the failure was ours, not the server's.
                guard !isShutDown.withLock({ $0 }) else {
                    throw APNsClientError(.shutDown, "the APNs client was shut down while sending")
                }
                retries += 1
                guard answers.count < configuration.retryPolicy.maximumAttempts + (refreshedToken ? 1 : 0) else {
                    logger.notice(
                        "giving up on a notification",
                        metadata: ["apns-id": "\(apnsID.uuidString.lowercased())", "last": "\(answer)"])
                    return APNsDelivery(apnsID: apnsID, outcome: .gaveUp(answer), answers: answers)
                }
                let delay = configuration.retryPolicy.delay(
                    beforeRetry: retries, retryAfter: retryAfter, random: random.withLock { $0.nextUnit() })
                logger.debug(
                    "retrying a notification",
                    metadata: [
                        "apns-id": "\(apnsID.uuidString.lowercased())", "answer": "\(answer)", "delay": "\(delay)",
                    ])
                let clock = configuration.clock
                try await clock.sleep(until: clock.now.addingTimeInterval(delay))
                token = try await signer.token()
            }
        }
    }

    /// Closes the connections and waits until they are closed. Notifications sent afterwards throw
    /// ``APNsClientError/Code/shutDown``; calling it again does nothing.
    ///
    /// - Throws: AsyncHTTPClient's error when closing fails.
    public func shutdown() async throws {
        let wasShutDown = isShutDown.withLock { isShutDown in
            defer { isShutDown = true }
            return isShutDown
        }
        guard !wasShutDown else { return }
        try await http.shutdown()
    }

    /// A client released without ``shutdown()`` closes its connections in the background.
    deinit {
        if !isShutDown.withLock({ $0 }) { http.shutdown { _ in } }
    }

    /// One request: its answer, its verdict, and the `apns-unique-id` of a 200.
    private func attempt(
        _ notification: APNsNotification, apnsID: UUID, body: ByteBuffer, token: ProviderTokenSigner.Token
    ) async -> (APNsDelivery.Answer, APNsAnswerClassifier.Verdict, String?) {
        var request = HTTPClientRequest(
            url: configuration.server.url(deviceToken: notification.deviceToken.lowercased()))
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(token.value)")
        for header in notification.headers(apnsID: apnsID) {
            request.headers.add(name: header.name, value: header.value)
        }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(body)
        do {
            let response = try await http.execute(
                request, timeout: Self.amount(configuration.requestTimeout), logger: logger)
            let bytes = try await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            let (reason, timestamp) =
                status == 200 ? (nil, nil) : APNsAnswerClassifier.parseBody(bytes.readableBytesView)
            let verdict = APNsAnswerClassifier.verdict(
                status: status, reason: reason, timestamp: timestamp,
                retryAfter: APNsAnswerClassifier.retryAfter(response.headers.first(name: "retry-after")))
            return (
                APNsDelivery.Answer(status: status, reason: reason), verdict,
                response.headers.first(name: "apns-unique-id")
            )
        } catch {
            let answer = APNsDelivery.Answer(status: nil, connectionError: "\(error)")
            return (answer, .retry(retryAfter: nil), nil)
        }
    }

    /// Seconds as NIO's `TimeAmount`.
    private static func amount(_ seconds: TimeInterval) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }
}
