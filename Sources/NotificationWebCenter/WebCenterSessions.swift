import Synchronization

/// The browser sessions the web center has opened: each is a random session identifier (the cookie) with its own
/// random CSRF token (the hidden field of every form). In memory only: a restarted daemon has a new secret anyway.
///
/// ```swift
/// let sessions = WebCenterSessions()
/// let session = sessions.open()
/// sessions.session(id: session.id)?.csrfToken == session.csrfToken   // true
/// ```
public final class WebCenterSessions: Sendable {
    /// One browser's session.
    public struct Session: Sendable, Hashable {
        /// The cookie's value: 32 random bytes as hex.
        public var id: String
        /// The token every state-changing form carries: 32 random bytes as hex.
        public var csrfToken: String
    }

    /// Sessions by identifier, and the identifiers oldest first (for the cap).
    private let state = Mutex<(sessions: [String: Session], order: [String])>(([:], []))
    private let capacity: Int

    /// Creates an empty set that keeps at most `capacity` sessions (the oldest is forgotten first).
    public init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    /// Opens a new session.
    public func open() -> Session {
        var generator = SystemRandomNumberGenerator()
        let session = Session(
            id: WebCenterSecret.randomHex(bytes: 32, using: &generator),
            csrfToken: WebCenterSecret.randomHex(bytes: 32, using: &generator))
        state.withLock { state in
            state.sessions[session.id] = session
            state.order.append(session.id)
            while state.order.count > capacity { state.sessions[state.order.removeFirst()] = nil }
        }
        return session
    }

    /// The session with this identifier, compared in constant time with each one kept.
    public func session(id: String) -> Session? {
        let candidate = Array(id.utf8)
        return state.withLock { state in
            var found: Session?
            for session in state.sessions.values
            where WebCenterSecret.constantTimeEquals(Array(session.id.utf8), candidate) {
                found = session
            }
            return found
        }
    }
}
