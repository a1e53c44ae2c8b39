import NotificationWire
import Synchronization

/// The requests of one ``DaemonConnection`` waiting for their replies, and the live socket: shared by the connection's
/// actor, the requests sent without it (an add in a binary frame), and the channel handler that answers those from the
/// event loop (``ReplyRouter``), so that neither way needs a hop through the actor per request.
///
/// ```swift
/// let replies = ReplyTable()
/// replies.connect(ReplyTable.Link(writer: writer, generation: 1, compact: true))
/// let id = replies.nextID()
/// // … register(id, continuation, deadline:), write the frame; the router calls resume(id, with:) …
/// ```
final class ReplyTable: Sendable {
    /// A request waiting for its reply, and when it stops waiting.
    struct Waiting {
        var continuation: CheckedContinuation<WireReply, any Error>
        var deadline: ContinuousClock.Instant
    }

    /// The connection requests may be written to without the actor.
    struct Link: Sendable {
        /// Where the connection's frames go.
        var writer: SocketWriter
        var generation: UInt64
        /// Whether the daemon agreed on protocol version 2 (binary add frames).
        var compact: Bool
    }

    /// What ``register(_:_:deadline:requiringLink:)`` decided.
    enum Registration {
        /// Registered: write the request with `writer`; start the reply watch when `startWatch`.
        case registered(writer: SocketWriter?, startWatch: Bool)
        /// No live link: nothing was registered.
        case notConnected
    }

    private struct State {
        var nextID: UInt64 = 1
        var waiting: [UInt64: Waiting] = [:]
        var link: Link?
        /// Whether a task watches the deadlines.
        var watching = false
    }

    private let state = Mutex(State())

    /// A new request identifier, unique on this connection across reconnections.
    func nextID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// The live link, if any.
    var link: Link? { state.withLock { $0.link } }

    /// Makes `link` the one requests go to without the actor.
    func connect(_ link: Link) {
        state.withLock { $0.link = link }
    }

    /// Forgets the link (of `generation`, or whichever when `nil`): later requests go through the actor, which
    /// connects again.
    func disconnect(generation: UInt64? = nil) {
        state.withLock { state in
            guard generation == nil || state.link?.generation == generation else { return }
            state.link = nil
        }
    }

    /// Registers a request waiting for its reply. With `requiringLink`, only while a link is live (and then under the
    /// same lock as ``failAll(_:)`` takes, so a request is either failed by a lost connection or registered after it
    /// and sent on the next).
    func register(
        _ id: UInt64, _ continuation: CheckedContinuation<WireReply, any Error>, deadline: ContinuousClock.Instant,
        requiringLink: Bool
    ) -> Registration {
        state.withLock { state in
            if requiringLink, state.link?.compact != true { return .notConnected }
            state.waiting[id] = Waiting(continuation: continuation, deadline: deadline)
            let startWatch = !state.watching
            state.watching = true
            return .registered(writer: state.link?.writer, startWatch: startWatch)
        }
    }

    /// Answers the request `id` (a reply that finds no one waiting, after a timeout, is dropped).
    func resume(_ id: UInt64, with result: Result<WireReply, any Error>) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.continuation.resume(with: result)
    }

    /// Fails every waiting request.
    func failAll(_ failure: any Error) {
        let all = state.withLock { state in
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for entry in all { entry.continuation.resume(throwing: failure) }
    }

    /// The earliest deadline of a waiting request; `nil`, and the watch ends, when none waits.
    func earliestDeadline() -> ContinuousClock.Instant? {
        state.withLock { state in
            guard let earliest = state.waiting.values.lazy.map(\.deadline).min() else {
                state.watching = false
                return nil
            }
            return earliest
        }
    }

    /// Fails the requests whose deadline is past `now` with `failure`.
    func timeOut(at now: ContinuousClock.Instant, _ failure: any Error) {
        let late = state.withLock { state in
            let ids = state.waiting.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.waiting.removeValue(forKey: $0) }
        }
        for entry in late { entry.continuation.resume(throwing: failure) }
    }
}
