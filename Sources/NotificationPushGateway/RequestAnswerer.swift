import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import Synchronization

/// Answers one request on behalf of every connection: the endpoint's own checks (shutting down, too busy,
/// provider token, per-token rate), then the responder (``PushGateway/handle(_:)``). All shared state sits in one
/// `Mutex`; the per-token rate counts seconds of the configuration's clock.
final class RequestAnswerer: Sendable {
    private struct State {
        var draining = false
        var inFlight = 0
        /// Requests per device token in the current second.
        var second: Int64 = 0
        var perToken: [Substring: Int] = [:]
        /// Tasks waiting in ``waitUntilDrained()``.
        var drainWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    let responder: @Sendable (APNsRequest) async -> APNsResponse
    /// Answers requests that arrived together, one answer per request in order (``answer(batch:connection:then:)``),
    /// `nil` for a request to answer on its own with ``responder``; without it, each request is answered on its own.
    let batchResponder: (@Sendable ([APNsRequest]) async -> [APNsResponse?])?
    let verifier: ProviderTokenVerifier?
    let maximumConcurrentRequests: Int
    let maximumRequestsPerTokenPerSecond: Int?
    let clock: any NotificationClock
    /// The fault rules (``APNsFaultRule``), asked once per batch, for each request answered alone, and for each new
    /// connection.
    let faults: FaultInjector
    let requestLog: APNsRequestLog?
    let environment: PushEnvironment
    private let state = Mutex(State())

    init(
        responder: @escaping @Sendable (APNsRequest) async -> APNsResponse,
        batchResponder: (@Sendable ([APNsRequest]) async -> [APNsResponse?])? = nil, verifier: ProviderTokenVerifier?,
        configuration: APNsEndpointConfiguration
    ) {
        self.responder = responder
        self.batchResponder = batchResponder
        self.verifier = verifier
        self.maximumConcurrentRequests = configuration.maximumConcurrentRequests
        self.maximumRequestsPerTokenPerSecond = configuration.maximumRequestsPerTokenPerSecond
        self.clock = configuration.clock
        self.faults = FaultInjector(rules: configuration.faultRules)
        self.requestLog = configuration.requestLog
        self.environment = configuration.environment
    }

    /// From now on every request answers 503 `Shutdown`.
    func startDraining() { state.withLock { $0.draining = true } }

    /// The number of requests being answered.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Returns once no request is being answered (at once when none is), or when the calling task is cancelled.
    func waitUntilDrained() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.inFlight == 0 || Task.isCancelled { return true }
                    state.drainWaiters[id] = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.drainWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Ends `count` admitted requests; the last one out wakes the tasks waiting for the endpoint to drain.
    private func finish(_ count: Int = 1) {
        guard count > 0 else { return }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= count
            guard state.inFlight == 0 else { return [] }
            defer { state.drainWaiters.removeAll() }
            return Array(state.drainWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Answers a request; never throws, every outcome is an APNs answer.
    func answer(_ request: APNsRequest, connection: ConnectionState) async -> APNsResponse {
        await answer(request, connection: connection) { $0 }
    }

    /// Answers a request and hands the answer to `deliver` (which writes it to the connection); the request counts
    /// as in flight until `deliver` returns, so ``waitUntilDrained()`` returns only after the answer went out.
    func answer<Delivered: Sendable>(
        _ request: APNsRequest, connection: ConnectionState,
        then deliver: @Sendable (APNsResponse) async -> Delivered
    ) async -> Delivered {
        let id = Self.requestedID(request) ?? APNsID.random()
        let received = (Date(), ContinuousClock.now)
        guard await connection.admitted() else {
            // A connection a shutdown rule refused: it is closing, nothing goes out on it.
            let response = APNsResponse(
                reason: APNsReason.shutdown.with(detail: "the connection was refused by a shutdown fault rule"),
                apnsID: id)
            log(request, response, connection: connection, received: received)
            return await deliver(response)
        }
        if let admitted = refusal() {
            let response = APNsResponse(reason: admitted, apnsID: id)
            log(request, response, connection: connection, received: received)
            return await deliver(response)
        }
        let (response, end) = await admittedAnswer(request, id: id, connection: connection)
        log(request, response, connection: connection, received: received)
        let delivered = await deliver(response)
        // A fatal answer ends the connection once it went out: GOAWAY with the reason, then close.
        if let end { connection.end(end) }
        finish()
        return delivered
    }

    /// Answers requests that arrived together on one connection (the streams of one read) and hands their answers
    /// to `deliver` together (which writes them); each request counts as in flight until `deliver` returns.
    ///
    /// Each request gets the answer ``answer(_:connection:then:)`` would give it: the endpoint's checks in arrival
    /// order, then one call of ``batchResponder`` for those that pass them. A request a fault rule applies to is
    /// answered on its own (a rule may delay or hold it), with its answer delivered alone; so is one the batch
    /// responder leaves out (`nil`: a push that waits for an app), by ``responder``. Without a ``batchResponder``,
    /// each request is answered on its own.
    ///
    /// ```swift
    /// await answerer.answer(batch: requests, connection: connection) { answered in
    ///     for (index, response) in answered { write(response, to: streams[index]) }
    /// }
    /// ```
    func answer(
        batch requests: [APNsRequest], connection: ConnectionState,
        then deliver: @escaping @Sendable ([(index: Int, response: APNsResponse)]) async -> Void
    ) async {
        let received = (Date(), ContinuousClock.now)
        let ids = requests.map { Self.requestedID($0) ?? APNsID.random() }
        var answered: [(index: Int, response: APNsResponse)] = []
        guard await connection.admitted() else {
            for (index, request) in requests.enumerated() {
                let response = APNsResponse(
                    reason: APNsReason.shutdown.with(detail: "the connection was refused by a shutdown fault rule"),
                    apnsID: ids[index])
                log(request, response, connection: connection, received: received)
                answered.append((index, response))
            }
            return await deliver(answered)
        }
        var admitted = 0
        var ends: [APNsReason] = []
        var forResponder: [(index: Int, request: APNsRequest)] = []
        // The fault rules in force, asked once for the batch (the daemon reads them from the store): a rule set
        // meanwhile applies from the next batch on.
        let rules = await faults.currentRules()
        for (index, request) in requests.enumerated() {
            if let refusal = refusal() {
                let response = APNsResponse(reason: refusal, apnsID: ids[index])
                log(request, response, connection: connection, received: received)
                answered.append((index, response))
                continue
            }
            switch await check(request, id: ids[index], connection: connection, rules: rules) {
            case .answered(let response, let end):
                admitted += 1
                log(request, response, connection: connection, received: received)
                answered.append((index, response))
                if let end { ends.append(end) }
            case .respond(let checked):
                admitted += 1
                forResponder.append((index, checked))
            case .fault(let checked, let rule):
                let id = ids[index]
                Task {
                    let (response, end) = await faultAnswer(checked, rule: rule, id: id, connection: connection)
                    log(request, response, connection: connection, received: received)
                    await deliver([(index, response)])
                    if let end { connection.end(end) }
                    finish()
                }
            }
        }
        if !forResponder.isEmpty {
            let responses: [APNsResponse?]
            if let batchResponder {
                responses = await batchResponder(forResponder.map(\.request))
            } else {
                responses = forResponder.map { _ in nil }
            }
            for (position, (index, checked)) in forResponder.enumerated() {
                // A responder that answered fewer requests than it was given leaves the rest to be answered alone.
                guard let response = position < responses.count ? responses[position] : nil else {
                    // Answered on its own: it may wait for an app, and the batch's other answers do not wait for it.
                    admitted -= 1
                    let request = requests[index]
                    Task {
                        let response = await responder(checked)
                        log(request, response, connection: connection, received: received)
                        await deliver([(index, response)])
                        finish()
                    }
                    continue
                }
                log(requests[index], response, connection: connection, received: received)
                answered.append((index, response))
            }
        }
        if !answered.isEmpty { await deliver(answered) }
        // A fatal answer ends the connection once it went out: GOAWAY with the reason, then close.
        for end in ends { connection.end(end) }
        finish(admitted)
    }

    /// Takes an in-flight slot for a request, or says why there is none: the endpoint drains, or as many requests as
    /// allowed are in flight. A request that gets a slot gives it back through ``finish(_:)``.
    private func refusal() -> APNsReason? {
        state.withLock { state in
            if state.draining { return APNsReason.shutdown.with(detail: "the endpoint is shutting down") }
            if state.inFlight >= maximumConcurrentRequests {
                return APNsReason.serviceUnavailable.with(detail: "too many requests at once")
            }
            state.inFlight += 1
            return nil
        }
    }

    /// Records a request and its answer in the request log, when there is one.
    private func log(
        _ request: APNsRequest, _ response: APNsResponse, connection: ConnectionState,
        received: (Date, ContinuousClock.Instant)
    ) {
        guard let requestLog else { return }
        let elapsed = (ContinuousClock.now - received.1).components
        requestLog.record(
            APNsLogEntry(
                receivedAt: received.0,
                connection: connection.label,
                environment: environment, method: request.method, path: request.path,
                headers: request.headers.map { ($0.name, $0.value) }, payload: request.body, status: response.status,
                reason: response.reason?.reason, apnsID: response.apnsID,
                latency: Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18))
    }

    /// The answer to an admitted request (provider token, per-token rate, fault rules, then the responder) and,
    /// for a fatal one, the reason the connection ends with.
    private func admittedAnswer(_ request: APNsRequest, id: String, connection: ConnectionState) async
        -> (APNsResponse, end: APNsReason?)
    {
        switch await check(request, id: id, connection: connection) {
        case .answered(let response, let end): return (response, end)
        case .respond(let request): return (await responder(request), nil)
        case .fault(let request, let rule):
            return await faultAnswer(request, rule: rule, id: id, connection: connection)
        }
    }

    /// What the endpoint's own checks make of an admitted request.
    private enum Checked {
        /// Answered by the checks (and, for a fatal answer, the reason the connection ends with).
        case answered(APNsResponse, end: APNsReason?)
        /// For the responder (the request as the checks completed it: a certificate's topic).
        case respond(APNsRequest)
        /// A fault rule applies to it.
        case fault(APNsRequest, APNsFaultRule)
    }

    /// The endpoint's checks of an admitted request: provider token or certificate, per-token rate, fault rules.
    /// - Parameter rules: The fault rules in force, when the caller asked them already for several requests
    ///   (``FaultInjector/currentRules()``); `nil` asks them now.
    private func check(
        _ request: APNsRequest, id: String, connection: ConnectionState, rules: [APNsFaultRule]? = nil
    ) async -> Checked {
        var request = request
        if let certificate = connection.certificate {
            // A certificate authenticates the connection: provider tokens are not asked for.
            switch certificateAnswer(certificate, request: &request) {
            case .none: break
            case .some(let reason) where reason == .badCertificate || reason == .badCertificateEnvironment:
                return .answered(APNsResponse(reason: reason, apnsID: id), end: reason)
            case .some(let reason): return .answered(APNsResponse(reason: reason, apnsID: id), end: nil)
            }
        } else if let verifier {
            let authorization = request.headers.first { $0.name.lowercased() == "authorization" }?.value
            let team: String
            switch await verifier.verify(authorization: authorization) {
            case .failure(let reason): return .answered(APNsResponse(reason: reason, apnsID: id), end: nil)
            case .success(let verified): team = verified
            }
            if !connection.accept(team: team) {
                let detail = "one connection carries one team (\(connection.team ?? "?")), this token names \(team)"
                let response = APNsResponse(reason: APNsReason.invalidProviderToken.with(detail: detail), apnsID: id)
                return .answered(response, end: nil)
            }
            if let authorization,
                !(await connection.accept(
                    authorization, now: verifier.now(), minimumInterval: verifier.minimumRefreshInterval))
            {
                return .answered(
                    APNsResponse(
                        reason: APNsReason.tooManyProviderTokenUpdates.with(detail: "a new token within 20 minutes"),
                        apnsID: id), end: nil
                )
            }
            if !request.headers.contains(where: { $0.name.lowercased() == "apns-topic" }) {
                return .answered(
                    APNsResponse(
                        reason: APNsReason.missingTopic.with(detail: "token authentication needs apns-topic"),
                        apnsID: id), end: nil
                )
            }
        }
        if let limit = maximumRequestsPerTokenPerSecond, !admit(path: request.path, limit: limit) {
            return .answered(
                APNsResponse(
                    reason: APNsReason.tooManyRequests.with(detail: "too many requests to one token"), apnsID: id),
                end: nil
            )
        }
        let topic = request.headers.first { $0.name.lowercased() == "apns-topic" }?.value
        let current: [APNsFaultRule]
        if let rules { current = rules } else { current = await faults.currentRules() }
        guard let rule = faults.rule(path: request.path, topic: topic, among: current) else { return .respond(request) }
        return .fault(request, rule)
    }

    /// The answer to a request a fault rule applies to, and, for a fatal one, the reason the connection ends with.
    private func faultAnswer(_ request: APNsRequest, rule: APNsFaultRule, id: String, connection: ConnectionState)
        async -> (APNsResponse, end: APNsReason?)
    {
        if rule.delay > 0 { try? await clock.sleep(until: clock.now.addingTimeInterval(rule.delay)) }
        let detail = "fault rule \(rule.id)"
        switch rule.action {
        case .answer:
            guard let reason = rule.answer else { return (await responder(request), nil) }
            return (APNsResponse(reason: reason.with(detail: detail), apnsID: id), nil)
        case .hold:
            // No answer: the stream stays open until the connection closes (or the endpoint stops and closes it).
            await connection.closed()
            return (
                APNsResponse(reason: APNsReason.shutdown.with(detail: "\(detail) held it unanswered"), apnsID: id), nil
            )
        case .close:
            let response = await responder(request)
            guard connection.countMatch(rule: rule.id) >= rule.count ?? 1 else { return (response, nil) }
            return (response, (rule.answer ?? APNsReason.shutdown).with(detail: detail))
        case .shutdown:
            let reason = APNsReason.shutdown.with(detail: detail)
            return (APNsResponse(reason: reason, apnsID: id), reason)
        }
    }

    /// What a certificate connection's request is refused for, if anything: `BadCertificate`,
    /// `BadCertificateEnvironment` (both end the connection), `MissingTopic` or `TopicDisallowed`. A request without
    /// `apns-topic` on a certificate with one topic gets that topic, as APNs uses the certificate's subject.
    private func certificateAnswer(_ certificate: ClientCertificate, request: inout APNsRequest) -> APNsReason? {
        if let problem = certificate.problem { return APNsReason.badCertificate.with(detail: problem) }
        guard certificate.environments.contains(environment) else {
            let named = certificate.environments.map(\.rawValue).sorted().joined(separator: " and ")
            return APNsReason.badCertificateEnvironment.with(
                detail: "a \(named) certificate on the \(environment.rawValue) endpoint")
        }
        let topics = request.headers.filter { $0.name.lowercased() == "apns-topic" }
        guard let topic = topics.first?.value else {
            if certificate.listsTopics {
                return APNsReason.missingTopic.with(detail: "the certificate names several topics: say which")
            }
            request.headers.append((name: "apns-topic", value: certificate.bundleID ?? ""))
            return nil
        }
        guard topics.count == 1 else { return nil }  // two apns-topic headers: the gateway answers DuplicateHeaders
        guard certificate.topics.contains(topic) else {
            return APNsReason.topicDisallowed.with(
                detail: "the certificate allows \(certificate.topics.joined(separator: ", ")), not \(topic)")
        }
        return nil
    }

    /// Counts a request to the path's token; `false` when the token had `limit` requests this second.
    private func admit(path: String, limit: Int) -> Bool {
        guard path.hasPrefix("/3/device/") else { return true }
        let token = path.dropFirst("/3/device/".count)
        let second = Int64(clock.now.timeIntervalSince1970.rounded(.down))
        return state.withLock { state in
            if state.second != second {
                state.second = second
                state.perToken.removeAll(keepingCapacity: true)
            }
            let count = state.perToken[token, default: 0]
            guard count < limit else { return false }
            state.perToken[token] = count + 1
            return true
        }
    }

    /// The request's `apns-id` when it is one valid UUID, lowercased, for the endpoint's own answers.
    static func requestedID(_ request: APNsRequest) -> String? {
        let given = request.headers.filter { $0.name.lowercased() == "apns-id" }
        guard given.count == 1, given[0].value.utf8.count == 36, UUID(uuidString: given[0].value) != nil else {
            return nil
        }
        return given[0].value.lowercased()
    }
}
