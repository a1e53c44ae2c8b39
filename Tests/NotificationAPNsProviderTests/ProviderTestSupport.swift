import Foundation
import NotificationAPNsProvider
import NotificationEngine
import NotificationModel
import NotificationPush
import NotificationPushGateway
import OpenUserNotifications
import OpenUserNotificationsTesting
import Synchronization
import Testing
import TestPrograms

/// The app every test pushes to.
let testAppID = "com.example.provider"
/// The key and team the endpoint's provider-token check knows.
let testKeyID = "KEY1234567"
let testTeamID = "TEAM123456"

/// A value shared by concurrent tasks.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}

/// A clock whose sleeps return at once after moving its time to their deadline, recording how long each was, and
/// telling `onSleep` (with the sleep's number, from 1) so a test can change the world between two attempts.
final class SteppingClock: NotificationClock {
    private struct State {
        var now: Date
        var sleeps: [TimeInterval] = []
    }
    private let state: Mutex<State>
    let onSleep: Mutex<(@Sendable (Int) -> Void)?> = Mutex(nil)

    init(now: Date = Date(timeIntervalSince1970: 1_767_603_600)) { state = Mutex(State(now: now)) }

    var now: Date { state.withLock { $0.now } }
    var timeZone: TimeZone { TimeZone(identifier: "UTC")! }
    /// Every sleep's length, in order.
    var sleeps: [TimeInterval] { state.withLock { $0.sleeps } }

    func advance(by interval: TimeInterval) { state.withLock { $0.now.addTimeInterval(interval) } }

    func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let count = state.withLock { state in
            state.sleeps.append(deadline.timeIntervalSince(state.now))
            state.now = max(state.now, deadline)
            return state.sleeps.count
        }
        onSleep.withLock { $0 }?(count)
    }
}

/// Fault rules a test changes while the endpoint runs.
final class FaultRules: Sendable {
    private let current = Mutex<[APNsFaultRule]>([])
    func set(_ rules: [APNsFaultRule]) { current.withLock { $0 = rules } }
    var all: [APNsFaultRule] { current.withLock { $0 } }
}

/// The devices' side: a notification system with an app registered for pushes, behind `unotifyd`'s APNs endpoint
/// over TLS (a fresh self-signed certificate) with provider tokens checked against a fresh `.p8` key; and an
/// ``APNsClient`` pointed at it that trusts the certificate and signs with the key.
///
/// Everything the endpoint received is in ``requests`` (what reached the gateway) and ``logEntries`` (every request,
/// fault-injected ones included, with its connection).
final class LiveEndpoint: Sendable {
    let folder: URL
    let system: NotificationTestSystem
    let token: DeviceToken
    let endpoint: APNsEndpoint
    let port: Int
    let certificate: String
    let keyPath: String
    let rules = FaultRules()
    let clock: SteppingClock
    private let received = Shared<[APNsRequest]>([])
    private let logged = Shared<[APNsLogEntry]>([])
    private let requestLog: APNsRequestLog
    private let configuration: APNsEndpointConfiguration
    private let responder: @Sendable (APNsRequest) async -> APNsResponse

    /// Starts the endpoint.
    ///
    /// - Parameters:
    ///   - clock: The clock the client will use; the endpoint's provider-token check reads the same time.
    ///   - tokenLifetime: How long the endpoint takes a provider token to be good (an hour, as APNs).
    ///   - recordsRequests: Whether ``requests`` keeps what reached the gateway (the benchmark does not), and the
    ///     provider-token check reads `clock` (else the system's time).
    ///   - adjust: Edits the endpoint's configuration last.
    init(
        clock: SteppingClock = SteppingClock(), tokenLifetime: TimeInterval = 3_600, recordsRequests: Bool = true,
        adjust: (inout APNsEndpointConfiguration) -> Void = { _ in }
    ) async throws {
        self.clock = clock
        folder = try temporaryFolder("apns-provider")
        certificate = try await makeCertificate(in: folder).certificate
        keyPath = try await makeAuthKey(keyID: testKeyID, in: folder)
        system = try NotificationTestSystem(
            configuration: OpenUserNotificationsConfiguration(deliveryLanguages: { ["en"] }))
        _ = try await system.center(for: testAppID)
        token = try await system.scheduler.registerForRemoteNotifications(appID: testAppID).token
        var verifier = try await ProviderTokenVerifier(authKeys: keyPath, teamID: testTeamID)
        // The tests' client and the endpoint read the same stepping clock; the benchmark's client reads the
        // system's, and so does its endpoint.
        verifier.now = { recordsRequests ? clock.now : Date() }
        verifier.lifetime = tokenLifetime
        let logged = logged
        requestLog = APNsRequestLog(keep: 100_000) { entries, _ in logged.update { $0 += entries } }
        var configuration = APNsEndpointConfiguration(address: APNsEndpointAddress(host: "127.0.0.1", port: 0))
        configuration.tls = .init(
            certificatePath: certificate, keyPath: folder.appendingPathComponent("key.pem").path)
        configuration.providerTokens = verifier
        configuration.requestLog = requestLog
        configuration.maximumRequestsPerTokenPerSecond = nil
        // AsyncHTTPClient 1.x asserts in debug builds (HTTPConnectionPool.swift:447, a second idle timer for one
        // connection) when a SETTINGS frame raising the stream limit reaches a connection it counts as idle, which
        // killed whole test runs now and then. The clients here do not test that raise: ConnectionBehaviourTests
        // reads it frame by frame with Python's h2. So the endpoints AsyncHTTPClient talks to in tests allow every
        // stream from the start.
        configuration.oneStreamUntilProviderToken = false
        let rules = rules
        configuration.faultRules = { rules.all }
        adjust(&configuration)
        let gateway = PushGateway(scheduler: system.scheduler)
        let received = received
        let recordsRequests = recordsRequests
        responder = { request in
            // The benchmark's trivial route: answered at once, never recorded.
            if request.path.hasSuffix(ProviderClientBenchmark.trivialToken) {
                return .success(apnsID: request.header("apns-id") ?? UUID().uuidString.lowercased())
            }
            if recordsRequests { received.update { $0.append(request) } }
            return await gateway.handle(request)
        }
        self.configuration = configuration
        endpoint = APNsEndpoint(configuration: configuration, responder: responder)
        port = try await endpoint.start()
    }

    /// Another endpoint on the same port, configuration and gateway, started: the first one restarted, once it
    /// was stopped. The caller stops it.
    func restart() async throws -> APNsEndpoint {
        var configuration = configuration
        configuration.address.port = port
        let endpoint = APNsEndpoint(configuration: configuration, responder: responder)
        try await endpoint.start()
        return endpoint
    }

    /// A client configuration for this endpoint: its address, its certificate trusted, the stepping clock, jitter
    /// fixed, and long timeouts: under the whole suite on two loaded cores an answer can take longer than the default
    /// 30 s, and a timed-out request is sent again (the tests count attempts and the endpoint's log entries).
    var clientConfiguration: APNsClientConfiguration {
        var configuration = APNsClientConfiguration(server: APNsServer(host: "127.0.0.1", port: port))
        configuration.requestTimeout = 300
        configuration.connectTimeout = 120
        configuration.trustRoots(pemFile: certificate)
        configuration.clock = clock
        configuration.jitterSeed = 42
        return configuration
    }

    /// A client for this endpoint; `adjust` edits its configuration first.
    func client(adjust: (inout APNsClientConfiguration) -> Void = { _ in }) throws -> APNsClient {
        var configuration = clientConfiguration
        adjust(&configuration)
        return try APNsClient(
            configuration: configuration, key: APNsSigningKey(p8File: keyPath, teamID: testTeamID))
    }

    /// A notification to the registered app.
    func notification(_ body: String = "Hello", apnsID: UUID? = nil) async -> APNsNotification {
        APNsNotification(
            deviceToken: token, topic: testAppID, apnsID: apnsID,
            payload: Data(#"{"aps":{"alert":{"title":"Provider","body":"\#(body)"}}}"#.utf8))
    }

    /// Requests that reached the gateway (past the endpoint's checks and fault rules).
    var requests: [APNsRequest] { received.current }

    /// Every request the endpoint answered, in order.
    var logEntries: [APNsLogEntry] {
        get async {
            await requestLog.flush()
            return logged.current
        }
    }

    /// Bodies the devices' side showed.
    var shown: [String] { system.presenter.presentations.map(\.body) }

    func stop() async {
        await endpoint.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

extension APNsRequest {
    /// A header's value, by name without case.
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
}
