import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NotificationEngine

/// The app's side of the push service's receipts (docs/push-service.md): one call in the app's delegate reports what
/// became of a push; receipts wait in a file in the app's folder until the server has them.
///
/// A receipt is written to the queue (``ReceiptQueue``, `receipts.jsonl`, flushed to disk and renamed into place)
/// before anything is sent, so it survives the app being killed or the device being offline. Each call then sends the
/// queue to `POST /v1/devices/{id}/receipts`, in batches of at most 100, with the device's APNs token as the
/// credential. When the server cannot be reached, or answers 401, 429 or 5xx, the receipts stay queued and the next
/// attempt waits: 2 s after the first failure, doubling to at most 10 minutes; the next call or ``flush()`` after
/// that time tries again. A 4xx other than 401 and 429 can never succeed: the batch's receipts are sent again one at
/// a time, and those refused alone are dropped with a log line. Calls made while a flush is sending only queue; that
/// flush sends what they queued.
/// The server counts a receipt once per device, message and kind, so a receipt sent again after a lost answer is not
/// counted twice.
///
/// ```swift
/// let client = try PushServiceClient(
///     serverURL: URL(string: "https://push.example.com")!, deviceID: "phone-1",
///     deviceToken: apnsTokenHex, queueFolder: applicationSupport.appendingPathComponent("receipts"))
/// // In userNotificationCenter(_:didReceive:withCompletionHandler:):
/// try await client.handleReceiveRemoteNotification(
///     response.notification.request.content.userInfo,
///     kind: .init(actionIdentifier: response.actionIdentifier))
/// ```
public actor PushServiceClient {
    /// The push service's address (the server API's base, e.g. `http://127.0.0.1:2199`).
    public nonisolated let serverURL: URL
    /// The device's identifier, as the backend registered it.
    public nonisolated let deviceID: String
    /// The device's APNs token (hex), its credential for receipts.
    public nonisolated let deviceToken: String
    /// The time used for receipts' dates and the retry delays.
    public nonisolated let clock: any NotificationClock
    let httpClient: HTTPClient
    let logger: Logger
    var queue: ReceiptQueue
    /// Failed attempts in a row (0 once the server answered).
    var failures = 0
    /// When the next attempt may be made after a failure.
    var retryAt: Date?
    /// Whether a flush is sending: calls made meanwhile (the actor runs them at its `await`s) only queue, and the
    /// running flush sends what they queued. Two flushes at once would send the same batch twice and then remove it
    /// twice, dropping receipts never sent.
    var flushing = false

    /// The `userInfo` key the push service puts the message identifier under (`PushMessage.messageIDKey`).
    public static let messageIDKey = "unotify-message-id"
    /// The most receipts one request carries (the server's limit).
    public static let batchSize = 100
    /// The wait after the first failed attempt, in seconds; it doubles with each failure in a row.
    public static let firstRetryDelay: TimeInterval = 2
    /// The longest wait between attempts, in seconds.
    public static let maximumRetryDelay: TimeInterval = 600

    /// Creates a client and reads the receipts an earlier instance left queued in `queueFolder`.
    ///
    /// Lines of the queue file that are not receipts are skipped, logged, and listed in ``skippedQueueLines``.
    ///
    /// - Parameters:
    ///   - serverURL: The push service's address.
    ///   - deviceID: The device's identifier.
    ///   - deviceToken: The device's APNs token in hex, as registered.
    ///   - queueFolder: A folder of the app's own (made when missing) for `receipts.jsonl`.
    ///   - clock: The time for receipts and retries: the system's by default.
    ///   - httpClient: The HTTP client: the shared one by default.
    ///   - logger: Where sends, drops and skipped lines are logged.
    /// - Throws: ``PushServiceClientError`` when the folder cannot be made or the queue cannot be read.
    public init(
        serverURL: URL, deviceID: String, deviceToken: String, queueFolder: URL,
        clock: any NotificationClock = SystemNotificationClock(), httpClient: HTTPClient = .shared,
        logger: Logger = Logger(label: "OpenUserNotifications.push-client")
    ) throws {
        self.serverURL = serverURL
        self.deviceID = deviceID
        self.deviceToken = deviceToken
        self.clock = clock
        self.httpClient = httpClient
        self.logger = logger
        let queue = try ReceiptQueue(folder: queueFolder)
        self.queue = queue
        for (number, line) in queue.skippedLines {
            logger.warning("receipt queue \(queue.file.path) line \(number) is not a receipt; skipped: \(line)")
        }
    }

    /// The receipts waiting to be sent.
    public var queuedCount: Int { queue.receipts.count }

    /// The lines of the queue file that were not receipts when this instance read it (1-based line number and the
    /// line); they are left out of the file at its next change.
    public var skippedQueueLines: [(number: Int, line: String)] { queue.skippedLines }

    /// Reports what became of a push: queues the receipt on disk, then sends the queue (unless the last attempt
    /// failed and its retry time has not come).
    ///
    /// A notification without `unotify-message-id` in its `userInfo` (not from the push service) is ignored.
    ///
    /// ```swift
    /// try await client.handleReceiveRemoteNotification(userInfo, kind: .opened)
    /// ```
    ///
    /// - Parameters:
    ///   - userInfo: The notification's `userInfo`, as the delegate got it.
    ///   - kind: What happened.
    /// - Returns: Whether the notification came from the push service (and a receipt was queued).
    /// - Throws: ``PushServiceClientError`` when the receipt cannot be written to the queue.
    @discardableResult
    public nonisolated func handleReceiveRemoteNotification(_ userInfo: [AnyHashable: Any], kind: ReceiptKind)
        async throws -> Bool
    {
        guard let messageID = userInfo[AnyHashable(Self.messageIDKey)] as? String, !messageID.isEmpty else {
            return false
        }
        try await report(messageID: messageID, kind: kind)
        return true
    }

    /// Queues a receipt for a message identifier on disk, then sends the queue as ``flush()`` does.
    ///
    /// - Parameters:
    ///   - messageID: The push's message identifier.
    ///   - kind: What happened.
    /// - Throws: ``PushServiceClientError`` when the receipt cannot be written to the queue.
    public func report(messageID: String, kind: ReceiptKind) async throws {
        if case .action(let identifier) = kind, identifier.isEmpty {
            throw PushServiceClientError("an action receipt needs the action's identifier")
        }
        try queue.append(QueuedReceipt(messageID: messageID, kind: kind, date: clock.now))
        _ = try await flush()
    }

    /// Sends the queued receipts, oldest first, unless the last attempt failed and its retry time has not come, or
    /// another flush is sending (that one sends them).
    ///
    /// ```swift
    /// let result = try await client.flush()  // e.g. when the app comes to the foreground
    /// ```
    ///
    /// - Returns: What was sent, dropped and left.
    /// - Throws: ``PushServiceClientError`` when the queue file cannot be rewritten.
    @discardableResult
    public func flush() async throws -> FlushResult {
        var result = FlushResult(sent: 0, dropped: 0, remaining: queue.receipts.count, retryAt: retryAt)
        if flushing { return result }
        if let retryAt, clock.now < retryAt { return result }
        flushing = true
        defer { flushing = false }
        // After a batch is refused (400), its receipts go one at a time so that one bad receipt drops only itself.
        var limit = Self.batchSize
        while !queue.receipts.isEmpty {
            let batch = Array(queue.receipts.prefix(limit))
            switch await send(batch) {
            case .accepted(let unknown):
                let unknownCount = batch.filter { unknown.contains($0.messageId) }.count
                if unknownCount > 0 {
                    logger.warning("dropping \(unknownCount) receipts: the server knows no push \(unknown.sorted())")
                }
                try queue.removeFirst(batch.count)
                result.sent += batch.count - unknownCount
                result.dropped += unknownCount
                failures = 0
                retryAt = nil
            case .refused(let status, let detail) where batch.count > 1:
                logger.notice(
                    "a batch of \(batch.count) receipts was refused (\(status): \(detail)); sending one at a time")
                limit = 1
            case .refused(let status, let detail):
                logger.error(
                    "dropping a receipt for \(batch[0].messageId): the server refused it with \(status): \(detail)")
                try queue.removeFirst(1)
                result.dropped += 1
                failures = 0
                retryAt = nil
            case .unavailable(let reason):
                failures += 1
                let delay = min(Self.firstRetryDelay * pow(2, Double(min(failures - 1, 30))), Self.maximumRetryDelay)
                retryAt = clock.now.addingTimeInterval(delay)
                logger.notice(
                    "\(queue.receipts.count) receipts stay queued (\(reason)); next attempt in \(Int(delay)) s")
                result.remaining = queue.receipts.count
                result.retryAt = retryAt
                return result
            }
        }
        result.remaining = 0
        result.retryAt = nil
        return result
    }

    /// The server's address without a trailing `/`.
    nonisolated var baseURL: String {
        let text = serverURL.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// The URL of one of this device's routes: `<server>/v1/devices/<id, percent-encoded>/<suffix>`.
    nonisolated func devicePath(_ suffix: String) -> String {
        baseURL + "/v1/devices/\(Self.pathComponent(deviceID))/" + suffix
    }

    /// A name percent-encoded as one path component (a `/` in it becomes `%2F`).
    static func pathComponent(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }

    /// What the server made of one batch.
    enum Outcome {
        /// 2xx: recorded or duplicates; receipts for these message identifiers were not stored (no such push).
        case accepted(unknownMessages: Set<String>)
        /// A 4xx other than 401 and 429: sending again cannot succeed.
        case refused(status: Int, detail: String)
        /// No answer, 401 (the device not registered yet, or a token being replaced), 429 or 5xx: try later.
        case unavailable(String)
    }

    /// Sends one batch.
    func send(_ batch: [QueuedReceipt]) async -> Outcome {
        struct Body: Encodable { var receipts: [QueuedReceipt] }
        let base = baseURL
        var request = HTTPClientRequest(url: devicePath("receipts"))
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(deviceToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        let status: Int
        let data: Data
        do {
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(Body(receipts: batch))))
            let response = try await httpClient.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            return .unavailable("cannot reach \(base): \(error)")
        }
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        switch status {
        case 200..<300:
            return .accepted(unknownMessages: Set(object?["unknownMessages"] as? [String] ?? []))
        case 401, 429, 500...:
            return .unavailable("HTTP \(status) \(object?["reason"] as? String ?? "")")
        default:
            let reason = object?["reason"] as? String ?? "HTTP \(status)"
            let detail = object?["detail"] as? String ?? String(decoding: data.prefix(200), as: UTF8.self)
            return .refused(status: status, detail: "\(reason): \(detail)")
        }
    }
}
