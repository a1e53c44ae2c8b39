import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import TestPrograms
import Testing

@testable import NotificationDaemon

/// The daemon's fault rules: read for every request, decoded only when another process changed them; rules that
/// cannot be read apply none, said once.
@Suite("APNs fault rule cache")
struct FaultRuleCacheTests {
    @Test("a change made through another store handle applies at the next read; unreadable rules apply none, one error")
    func cache() async throws {
        let folder = try temporaryFolder("gw-rule-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let system = try NotificationTestSystem(storePath: path)
        // `unotify apns fault` in another process: another handle on the same file.
        let store = try SQLiteNotificationStore(path: path)
        let errors = LogRecords()
        let cache = APNsFaultRuleCache(store: system.scheduler.store, logger: errors.logger)
        #expect(await cache.rules().isEmpty)
        let busy = try APNsFaultRule(id: "busy", reason: "TooManyRequests")
        try await store.setAPNsFaultRules([busy])
        #expect(await cache.rules() == [busy])
        #expect(await cache.rules() == [busy])
        // A value this version cannot read (a newer version's, or damaged): no rule, one error however many reads.
        try await store.setMetadata("apns.faults", #"[{"id":"x","delay":"soon"}]"#)
        #expect(await cache.rules().isEmpty)
        #expect(await cache.rules().isEmpty)
        #expect(errors.errorMessages.count == 1)
        #expect(errors.errorMessages.first?.contains("cannot be read") == true)
        let gone = try APNsFaultRule(id: "gone", reason: "Unregistered")
        try await store.setAPNsFaultRules([gone])
        #expect(await cache.rules() == [gone])
        try await store.setAPNsFaultRules([])
        #expect(await cache.rules().isEmpty)
        #expect(errors.errorMessages.count == 1)
    }
}
