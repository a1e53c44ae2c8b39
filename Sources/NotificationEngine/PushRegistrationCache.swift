import Foundation
import NotificationModel
import Synchronization

/// Device tokens' registrations decoded from their stored JSON, kept by that text: the APNs endpoint reads a token's
/// registration for every push, and decoding it with `JSONDecoder` each time cost more than the read.
///
/// The text is the key, so an entry can never be stale: a registration that changes (an app unregisters, its bundle
/// folder moves), whichever process changed it, is stored as other text, which is decoded anew.
///
/// ```swift
/// let registration = try PushRegistrationCache.shared.registration(decoding: stored)
/// ```
final class PushRegistrationCache: Sendable {
    /// The cache of the process.
    static let shared = PushRegistrationCache()
    /// The most texts kept; a full cache is emptied (a store holds one token per app and environment).
    static let capacity = 256

    private let decoded = Mutex<[String: PushRegistration]>([:])

    /// The registration `stored` encodes, decoded once per distinct text.
    /// - Throws: What `JSONDecoder` throws for text that is no registration (not kept).
    func registration(decoding stored: String) throws -> PushRegistration {
        if let known = decoded.withLock({ $0[stored] }) { return known }
        let registration = try JSONDecoder().decode(PushRegistration.self, from: Data(stored.utf8))
        decoded.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll() }
            cache[stored] = registration
        }
        return registration
    }
}
