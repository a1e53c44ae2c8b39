import Foundation
import NotificationWebCenterFiles
import Synchronization

/// The one-time links to the push statistics pages a worker has handed out (`POST /v1/center-links`, which
/// `unotify server center` calls): each is a random token that opens one browser session, once, within
/// ``lifetime`` of being issued. In the worker's memory only, so a link opens the pages of the worker that issued it.
///
/// The link's token is not the API's: a link left in a shell's history or seen on a shared screen is worth nothing
/// once used or a few minutes old, and never gives the API.
///
/// ```swift
/// let links = CenterLinks()
/// let link = links.issue(at: clock.now)
/// links.redeem(link.token[...], at: clock.now)   // true
/// links.redeem(link.token[...], at: clock.now)   // false: used
/// ```
final class CenterLinks: Sendable {
    /// How long a link may wait to be opened.
    static let lifetime: TimeInterval = 300
    /// The most links waiting at once; beyond it the oldest is forgotten.
    static let capacity = 64

    /// A link handed out.
    struct Link: Sendable, Hashable {
        /// 32 random bytes as hex: the link's `token` parameter.
        var token: String
        /// When it stops opening a session.
        var expiresAt: Date
    }

    /// The links not used yet, oldest first.
    private let waiting = Mutex<[Link]>([])

    /// Issues a new link, valid from `now` for ``lifetime``.
    func issue(at now: Date) -> Link {
        var generator = SystemRandomNumberGenerator()
        let link = Link(
            token: WebCenterSecret.randomHex(bytes: 32, using: &generator),
            expiresAt: now.addingTimeInterval(Self.lifetime))
        waiting.withLock { links in
            links.removeAll { $0.expiresAt <= now }
            links.append(link)
            if links.count > Self.capacity { links.removeFirst(links.count - Self.capacity) }
        }
        return link
    }

    /// Whether `candidate` is a link's token that has neither been used nor expired at `now`; the link is used then.
    /// Every waiting token is compared, in time that depends only on the lengths.
    func redeem(_ candidate: Substring, at now: Date) -> Bool {
        let bytes = Array(candidate.utf8)
        return waiting.withLock { links in
            var found: Int?
            for (index, link) in links.enumerated()
            where WebCenterSecret.constantTimeEquals(Array(link.token.utf8), bytes) {
                found = index
            }
            guard let found else { return false }
            let link = links.remove(at: found)
            return link.expiresAt > now
        }
    }
}
