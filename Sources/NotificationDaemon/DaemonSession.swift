import Foundation
import NotificationEngine
import NotificationModel
import NotificationWebCenter
import NotificationWire
import Synchronization

/// One client connection: the app it acts for, its outgoing queue, its unanswered requests, and the events waiting
/// for its answer.
///
/// When the app attaches, the session is its ``ForegroundApp``: the engine's questions become events on the
/// socket and the client's answers resume them. Likewise, once the app attached them, it is the app's
/// ``RemoteNotificationReceiver`` (background pushes), its ``ServiceExtensionHost`` (an extension registered in
/// the app's process) and its web center `ContentExtension` (views drawn in the app's process).
final class DaemonSession: ForegroundApp, RemoteNotificationReceiver, ServiceExtensionHost, ContentExtension, Sendable {
    private struct State {
        var appID: String?
        var speaksCompactFrames = false
        var queued = 0
        /// Requests read and not yet answered on the socket (queued for the worker, worked on, or answered but not
        /// yet written).
        var unansweredRequests = 0
        /// The reader, waiting for ``unansweredRequests`` to drop below the limit.
        var roomWaiter: CheckedContinuation<Void, Never>?
        /// Whether the reader ever had to wait: the client sent faster than it read.
        var wasThrottled = false
        /// Requests handed to the worker task and not yet answered by it.
        var workerRequests = 0
        var nextEventID: UInt64 = 1
        var answers: [UInt64: CheckedContinuation<ClientMessage?, Never>] = [:]
        var closed = false
    }

    let id: UInt64
    /// The process at the other end (`SO_PEERCRED`), for the cap on connections per process.
    let peerProcessID: Int32
    private let state = Mutex(State())
    private let outgoing: AsyncStream<ServerMessage>.Continuation
    private let maximumQueued: Int
    private let answerTimeout: TimeInterval
    private let closeConnection: @Sendable () -> Void
    private let writeDirectly: @Sendable (Data, _ written: @escaping @Sendable () -> Void) -> Void

    /// - Parameters:
    ///   - outgoing: The writer task's queue, for events (messages the daemon starts).
    ///   - writeDirectly: Writes a frame to the socket from the calling thread and calls `written` once it went out
    ///     (or failed): replies, failures and the welcome take this way, without a hand-over to the writer task.
    init(
        id: UInt64, peerProcessID: Int32 = 0, outgoing: AsyncStream<ServerMessage>.Continuation, maximumQueued: Int,
        maximumUnansweredRequests: Int = 32, answerTimeout: TimeInterval,
        writeDirectly: @escaping @Sendable (Data, _ written: @escaping @Sendable () -> Void) -> Void,
        closeConnection: @escaping @Sendable () -> Void
    ) {
        self.id = id
        self.peerProcessID = peerProcessID
        self.outgoing = outgoing
        self.maximumQueued = maximumQueued
        self.maximumUnansweredRequests = max(1, maximumUnansweredRequests)
        self.answerTimeout = answerTimeout
        self.writeDirectly = writeDirectly
        self.closeConnection = closeConnection
    }

    var appID: String? {
        get { state.withLock { $0.appID } }
        set { state.withLock { $0.appID = newValue } }
    }

    /// Whether the client agreed on protocol version 2 in its hello: it may send ``CompactFrame``s, and its adds are
    /// answered with one.
    var speaksCompactFrames: Bool {
        get { state.withLock { $0.speaksCompactFrames } }
        set { state.withLock { $0.speaksCompactFrames = newValue } }
    }

    /// Sends a message: an answer (a reply, a failure, the welcome) is written to the socket at once; an event is
    /// queued for the writer task, and a client whose queue is full is disconnected, so it cannot stall anyone.
    @discardableResult
    func send(_ message: ServerMessage) -> Bool {
        if message.isAnswer { return answer(message) }
        let accepted = state.withLock { state -> Bool in
            guard !state.closed, state.queued < maximumQueued else { return false }
            state.queued += 1
            return true
        }
        guard accepted else {
            close()
            return false
        }
        outgoing.yield(message)
        return true
    }

    /// Writes an answer from the calling thread (a request's worker, or the reader). An answer the wire cannot carry
    /// is replaced by a `failure` naming why, so the request is still answered.
    private func answer(_ message: ServerMessage) -> Bool {
        let (closed, compact) = state.withLock { ($0.closed, $0.speaksCompactFrames) }
        guard !closed else { return false }
        let frame: Data
        do {
            if compact, case .reply(let id, .done) = message {
                frame = CompactFrame.done(id: id)
            } else {
                frame = try WireProtocol.encode(message)
            }
        } catch {
            guard case .reply(let id, _) = message,
                let failure = try? WireProtocol.encode(
                    ServerMessage.failure(id: id, WireFailure(code: "storeFailure", message: "the reply cannot be encoded: \(error)")))
            else {
                close()
                return false
            }
            frame = failure
        }
        // Only whether it answers a request is kept for after the write, not a copy of the message.
        let answersRequest = message.answersRequest
        writeDirectly(frame) { [self] in didAnswer(request: answersRequest) }
        return true
    }

    /// Called once an answer went out (or could not): counts a request answered.
    private func didAnswer(request answersRequest: Bool) {
        guard answersRequest else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.unansweredRequests -= 1
            defer { state.roomWaiter = nil }
            return state.unansweredRequests < maximumUnansweredRequests ? state.roomWaiter : nil
        }
        waiter?.resume()
    }

    /// Called by the writer after each event went out.
    func didWrite(_ message: ServerMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.queued -= 1
            guard message.answersRequest else { return nil }
            state.unansweredRequests -= 1
            defer { state.roomWaiter = nil }
            return state.unansweredRequests < maximumUnansweredRequests ? state.roomWaiter : nil
        }
        waiter?.resume()
    }

    /// How many requests of this connection may be read before their answers went out. Past it the reader stops
    /// reading the socket, so a client that sends without reading its replies fills its own socket buffer, not the
    /// daemon's memory: back-pressure, not buffering.
    let maximumUnansweredRequests: Int

    /// Whether the session was closed.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether the client ever sent requests faster than it read their replies.
    var wasThrottled: Bool { state.withLock { $0.wasThrottled } }

    /// Counts a request the reader hands to the worker; returns once fewer than ``maximumUnansweredRequests`` are
    /// unanswered (at once, usually), or when the session closes.
    func requestRead() async {
        countRequestRead()
        await waitForRoom()
    }

    /// Counts a request read, without waiting.
    func countRequestRead() {
        state.withLock { $0.unansweredRequests += 1 }
    }

    /// Whether the worker task has no request of this session queued or in progress: a request the reader runs
    /// itself then keeps the connection's order.
    var workerIsIdle: Bool { state.withLock { $0.workerRequests == 0 } }

    /// Counts a request handed to the worker task (from the reader).
    func workerTookRequest() {
        state.withLock { $0.workerRequests += 1 }
    }

    /// Counts a request the worker task answered.
    func workerAnsweredRequest() {
        state.withLock { $0.workerRequests -= 1 }
    }

    /// Returns once fewer than ``maximumUnansweredRequests`` requests are unanswered (at once, usually), or when the
    /// session closes.
    func waitForRoom() async {
        let full = state.withLock { state -> Bool in
            let full = state.unansweredRequests >= maximumUnansweredRequests && !state.closed
            if full { state.wasThrottled = true }
            return full
        }
        guard full else { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                guard state.unansweredRequests >= maximumUnansweredRequests, !state.closed else { return true }
                state.roomWaiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// A new event identifier.
    private func nextEventID() -> UInt64 {
        state.withLock { state in
            defer { state.nextEventID += 1 }
            return state.nextEventID
        }
    }

    /// Sends an event and waits for the client's answer (`nil` when it closes or times out).
    private func ask(_ make: (UInt64) -> ServerMessage) async -> ClientMessage? {
        await ask(eventID: nextEventID(), timeout: answerTimeout, make)
    }

    /// Sends an event and waits for the client's answer (`nil` when it closes, or times out when `timeout` is set).
    private func ask(eventID: UInt64, timeout: TimeInterval?, _ make: (UInt64) -> ServerMessage) async -> ClientMessage? {
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeout))
                self?.answer(eventID: eventID, with: nil)
            }
        }
        defer { timer?.cancel() }
        return await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.closed { return false }
                state.answers[eventID] = continuation
                return true
            }
            guard open, send(make(eventID)) else {
                answer(eventID: eventID, with: nil)
                if !open { continuation.resume(returning: nil) }
                return
            }
        }
    }

    /// Resumes the event waiting for this answer.
    func answer(eventID: UInt64, with message: ClientMessage?) {
        let waiting = state.withLock { $0.answers.removeValue(forKey: eventID) }
        waiting?.resume(returning: message)
    }

    /// Ends the outgoing stream after what is queued, without closing the connection yet.
    func finishSending() {
        outgoing.finish()
    }

    /// Marks the session closed, closes the connection and releases every waiting event.
    func close() {
        let (waiting, reader) = state.withLock { state in
            state.closed = true
            defer {
                state.answers.removeAll()
                state.roomWaiter = nil
            }
            return (Array(state.answers.values), state.roomWaiter)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
        reader?.resume()
        outgoing.finish()
        closeConnection()
    }

    // MARK: ForegroundApp

    func willPresent(_ notification: DeliveredNotification) async -> PresentationSet? {
        guard case .presentationAnswer(_, let options)? = await ask({ .willPresent(eventID: $0, notification) }) else {
            return nil
        }
        return options
    }

    func didReceive(_ response: ResponseSpec) async -> Bool {
        guard case .responseAck(_, let accepted)? = await ask({ .didReceive(eventID: $0, response) }) else { return false }
        return accepted
    }

    // MARK: RemoteNotificationReceiver

    func didReceiveRemoteNotification(_ notification: RemoteNotification) async -> Bool {
        guard case .remoteNotificationAck(_, let accepted)? = await ask({ .remoteNotification(eventID: $0, notification) })
        else { return false }
        return accepted
    }

    // MARK: ContentExtension

    func view(of notification: DeliveredNotification) async throws -> String {
        guard
            case .contentExtensionAnswer(_, let html?)? = await ask({ .contentExtensionView(eventID: $0, notification) })
        else { throw ContentExtensionFailure("in the app's process gave no view (the app closed or has none)") }
        return html
    }

    func answer(_ response: ResponseSpec) async throws -> ContentExtensionResponseOption {
        guard
            case .contentExtensionAnswer(_, let text?)? = await ask({ .contentExtensionResponse(eventID: $0, response) })
        else { throw ContentExtensionFailure("in the app's process gave no answer") }
        guard let option = ContentExtensionResponseOption(rawValue: text) else {
            throw ContentExtensionFailure("answered '\(text.prefix(80))', not a response option")
        }
        return option
    }

    // MARK: ServiceExtensionHost

    func startExtension(for request: RequestSpec, appID: String) async -> (any ServiceExtensionRun)? {
        let eventID = nextEventID()
        let answer = Task { await self.ask(eventID: eventID, timeout: nil) { .serviceExtensionRequest(eventID: $0, request) } }
        return SessionExtensionRun(session: self, eventID: eventID, answer: answer)
    }

    /// An extension in the app's process, reached through this session; the engine keeps the time.
    private struct SessionExtensionRun: ServiceExtensionRun {
        let session: DaemonSession
        let eventID: UInt64
        let answer: Task<ClientMessage?, Never>

        func content() async -> NotificationPayload? {
            guard case .serviceExtensionContent(_, let content)? = await answer.value else { return nil }
            return content
        }

        func timeWillExpire() async {
            session.send(.serviceExtensionTimeWillExpire(eventID: eventID))
        }

        func finish() async {
            session.answer(eventID: eventID, with: nil)
            session.send(.serviceExtensionFinished(eventID: eventID))
        }
    }
}

extension ServerMessage {
    /// Whether the daemon sends it in answer to the client (a reply, a failure, the welcome): written to the socket at
    /// once, where events go through the session's writer task.
    fileprivate var isAnswer: Bool {
        switch self {
        case .reply, .failure, .welcome: true
        default: false
        }
    }
}
