import Logging
import NotificationEngine
import NotificationModel
import Synchronization

/// The daemon's fault rules (`unotify apns fault`), read from the store for every batch of APNs requests (those of one
/// read of a connection), every request answered on its own and every new connection, but decoded only when they
/// changed: each call reads the stored text (one small indexed read) and compares it with the text it decoded last, so
/// a rule another process sets applies from the next request on, and the common case (no change) costs no JSON
/// decoding.
///
/// Rules that cannot be read (a store written by a newer version, a damaged value) apply none, with one error in the
/// log per stored text (and one while the store cannot be read at all); the endpoint keeps answering.
final class APNsFaultRuleCache: Sendable {
    private struct Decoded {
        var stored: String?
        var rules: [APNsFaultRule]
        /// Whether the last read of the store failed (said once, until a read succeeds again).
        var readFailed = false
    }

    private let store: any NotificationStore
    private let logger: Logger
    private let decoded = Mutex(Decoded(stored: nil, rules: []))

    init(store: any NotificationStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The rules in force now.
    func rules() async -> [APNsFaultRule] {
        let stored: String?
        do {
            stored = try await store.storedAPNsFaultRules()
        } catch {
            let first = decoded.withLock { decoded in
                defer { decoded.readFailed = true }
                return !decoded.readFailed
            }
            if first { logger.error("cannot read the APNs fault rules from the store: \(error); none apply") }
            return []
        }
        decoded.withLock { $0.readFailed = false }
        if let cached = decoded.withLock({ $0.stored == stored ? $0.rules : nil }) { return cached }
        let rules: [APNsFaultRule]
        do {
            rules = try APNsFaultRule.decodeStored(stored)
        } catch {
            logger.error("the APNs fault rules in the store cannot be read: \(error); none apply")
            rules = []
        }
        decoded.withLock { $0 = Decoded(stored: stored, rules: rules) }
        return rules
    }
}
