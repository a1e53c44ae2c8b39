import Foundation
import Synchronization

/// The provider token a connection uses and since when, for `TooManyProviderTokenUpdates`.
final class ConnectionTokenState: Sendable {
    private let current = Mutex<(token: String, since: Date)?>(nil)

    /// Takes a verified token: `true` when it is the connection's current one, its first, or the current one is
    /// at least `minimumInterval` old.
    func accept(_ token: String, now: Date, minimumInterval: TimeInterval) -> Bool {
        current.withLock { current in
            if let current, current.token == token { return true }
            if let previous = current, now.timeIntervalSince(previous.since) < minimumInterval { return false }
            current = (token, now)
            return true
        }
    }
}
