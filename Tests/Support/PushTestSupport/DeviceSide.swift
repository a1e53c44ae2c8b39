import Foundation
import NotificationAPNsProvider
import NotificationModel
import NotificationPush
import NotificationPushGateway
import Synchronization
import TestPrograms

/// The devices' side of the worker tests and of `unotify-server-bench`: our own APNs endpoint (`APNsEndpoint`, TLS with
/// a fresh self-signed certificate, provider tokens checked against a fresh `.p8` key) in this process, answering 200
/// unless a token or topic is told to answer otherwise, and recording every request it answered.
///
/// ```swift
/// let side = try await DeviceSide()
/// let client = try side.client()   // an APNsClient for a worker
/// side.delayAnswers(by: .milliseconds(20))
/// // … workers deliver …
/// print(side.receivedCount)
/// try await client.shutdown()
/// await side.stop()
/// ```
public final class DeviceSide: Sendable {
    /// One request the endpoint answered.
    public struct Received: Sendable, Hashable {
        public var token: String
        public var topic: String
        public var apnsID: String
        public var status: Int
        public var title: String
        /// The `apns-priority`, `apns-expiration` and `apns-collapse-id` headers as sent ("" when absent).
        public var priority = ""
        public var expiration = ""
        public var collapseID = ""
        /// The JSON payload as sent (`aps` and the custom keys that become the notification's `userInfo`).
        public var payload = Data()
        /// The `apns-push-type` header.
        public var pushType = ""
        /// When the request reached the responder (before any ``delayAnswers(by:)``).
        public var arrivedAt = Date()

        /// The payload's `aps` dictionary.
        public var aps: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: payload)) as? [String: Any])?["aps"] as? [String: Any] ?? [:]
        }
    }

    public static let keyID = "KEY1234567"
    public static let teamID = "TEAM123456"

    /// The folder of the certificate and keys.
    public let folder: URL
    /// The endpoint's certificate (PEM), the clients' trust root.
    public let certificate: String
    /// The provider key (`.p8`) the endpoint checks tokens against.
    public let keyPath: String
    /// The endpoint.
    public let endpoint: APNsEndpoint
    /// The endpoint's port on 127.0.0.1.
    public let port: Int
    private let state = Locked(State())

    /// What the endpoint answered and is told to answer.
    struct State: Sendable {
        var received: [Received] = []
        /// The titles answered so far, and how many of them (a repeat of a fire has the title of its first arrival).
        var titles: Set<String> = []
        var byToken: [String: APNsReason] = [:]
        var byTopic: [String: APNsReason] = [:]
        /// How long the endpoint takes before it answers (an APNs round trip), none by default.
        var answerDelay: Duration?
        /// The titles of the requests that arrived, in order, answered or not yet.
        var arrived: [String] = []
        /// Whether answers wait until ``releaseAnswers()`` (a send that hangs).
        var holding = false
        /// The requests waiting for ``releaseAnswers()``.
        var held: [CheckedContinuation<Void, Never>] = []
    }

    /// A value behind a lock, shared with the endpoint's responder.
    public final class Locked<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        /// A lock around `value`.
        public init(_ value: Value) { mutex = Mutex(value) }
        /// Runs `body` with the value, under the lock.
        public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    /// Starts the endpoint on 127.0.0.1 with a fresh certificate and provider key.
    public init() async throws {
        folder = try temporaryFolder("server-worker")
        let (certificate, key) = try await makeCertificate(in: folder)
        self.certificate = certificate
        keyPath = try await makeAuthKey(keyID: Self.keyID, in: folder)
        let state = state
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.tls = .init(certificatePath: certificate, keyPath: key)
        configuration.providerTokens = try await ProviderTokenVerifier(authKeys: keyPath, teamID: Self.teamID)
        configuration.maximumRequestsPerTokenPerSecond = nil
        // Every stream from the start: a SETTINGS frame raising the limit that reaches a connection AsyncHTTPClient 1.x
        // counts as idle fails an assertion of its debug builds (a second idle timer), which killed whole test runs
        // now and then. The raise itself is tested frame by frame (ConnectionBehaviourTests).
        configuration.oneStreamUntilProviderToken = false
        endpoint = APNsEndpoint(configuration: configuration) { request in
            let arrivedAt = Date()
            func header(_ name: String) -> String { request.headers.first { $0.name.lowercased() == name }?.value ?? "" }
            let token = String(request.path.dropFirst("/3/device/".count))
            let topic = header("apns-topic")
            let apnsID = header("apns-id")
            let payload = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
            let alert = (payload?["aps"] as? [String: Any])?["alert"] as? [String: Any]
            let title = alert?["title"] as? String ?? ""
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let answer = state.withLock { state in
                    state.arrived.append(title)
                    if state.holding { state.held.append(continuation) }
                    return !state.holding
                }
                if answer { continuation.resume() }
            }
            if let delay = state.withLock({ $0.answerDelay }) { try? await Task.sleep(for: delay) }
            return state.withLock { state in
                let reason = state.byToken[token] ?? state.byTopic[topic]
                state.titles.insert(alert?["title"] as? String ?? "")
                state.received.append(
                    Received(
                        token: token, topic: topic, apnsID: apnsID, status: reason?.status ?? 200,
                        title: title, priority: header("apns-priority"),
                        expiration: header("apns-expiration"), collapseID: header("apns-collapse-id"),
                        payload: request.body, pushType: header("apns-push-type"), arrivedAt: arrivedAt))
                if let reason { return APNsResponse(reason: reason, apnsID: apnsID) }
                return .success(apnsID: apnsID)
            }
        }
        port = try await endpoint.start()
    }

    /// The arguments of a `unotifyd --server` worker on `databaseURL` delivering to this endpoint (append the rest:
    /// log level, API address, lease).
    public func workerArguments(databaseURL: String) -> [String] {
        [
            "--server", "--database", databaseURL, "--provider-key", keyPath, "--provider-team-id", Self.teamID,
            "--provider-development-server", "127.0.0.1:\(port)", "--provider-production-server", "127.0.0.1:\(port)",
            "--provider-trust-roots", certificate,
        ]
    }

    /// Makes the endpoint wait `delay` before each answer, as a distant APNs would (`nil`: at once).
    public func delayAnswers(by delay: Duration?) { state.withLock { $0.answerDelay = delay } }

    /// Makes the endpoint hold every answer from now on until ``releaseAnswers()``: the worker's send hangs.
    public func holdAnswers() { state.withLock { $0.holding = true } }

    /// Answers the requests held by ``holdAnswers()`` and stops holding.
    public func releaseAnswers() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// The titles of the requests that arrived, in order, including those whose answer is held.
    public var arrived: [String] { state.withLock { $0.arrived } }

    /// Makes the endpoint answer `reason` (or 200, for `nil`) to a token.
    public func answer(_ reason: APNsReason?, token: String) { state.withLock { $0.byToken[token] = reason } }

    /// Makes the endpoint answer `reason` to a topic.
    public func answer(_ reason: APNsReason?, topic: String) { state.withLock { $0.byTopic[topic] = reason } }

    /// Every request answered, in order.
    public var received: [Received] { state.withLock { $0.received } }

    /// How many requests were answered (without copying them).
    public var receivedCount: Int { state.withLock { $0.received.count } }

    /// How many distinct titles were answered: ``receivedCount`` less the repeats (each fire's title is its own).
    public var distinctTitleCount: Int { state.withLock { $0.titles.count } }

    /// The requests answered after the first `index` ones, in order.
    public func received(since index: Int) -> [Received] {
        state.withLock { Array($0.received.dropFirst(index)) }
    }

    /// A client for the endpoint, trusting its certificate and signing with its key.
    public func client(adjust: (inout APNsClientConfiguration) -> Void = { _ in }) throws -> APNsClient {
        var configuration = APNsClientConfiguration(server: APNsServer(host: "127.0.0.1", port: port))
        configuration.trustRoots(pemFile: certificate)
        configuration.jitterSeed = 7
        adjust(&configuration)
        return try APNsClient(configuration: configuration, key: APNsSigningKey(p8File: keyPath, teamID: Self.teamID))
    }

    /// Stops the endpoint and removes its files.
    public func stop() async {
        releaseAnswers()
        await endpoint.stop()
        removeFiles()
    }

    /// Removes the certificate and keys (the endpoint keeps them in memory).
    public func removeFiles() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Waits until `condition` holds, checking every 20 ms, for at most `seconds`.
/// - Returns: Whether it held in time.
public func eventually(within seconds: Double = 120, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
