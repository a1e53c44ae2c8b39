import Foundation
import Logging
import NIOCore
import NotificationEngine
import NotificationModel
import PostgresNIO

/// Recording many fires at once: the engine's recorder hands over every fire that queued up while it wrote the
/// previous ones (a burst's fires arrive faster than one transaction per fire can record them).
extension PostgresNotificationStore {
    /// Records the fires as ``completeFire(_:nextFireDate:delivered:history:badge:)`` records each, one after the
    /// other, but in a few set-based statements: one transaction per group of consecutive fires over at most
    /// ``appLockLimit`` apps (so each app is locked one by one, as a single fire locks its app, and never the plan lock
    /// exclusively), each with one read of the claims, one `DELETE` (and one `UPDATE` for repeating requests), one
    /// `INSERT` of the history entries, one of the delivered notifications and one of the badges, whatever the
    /// number of fires. A burst's fires cost a few round trips per group instead of seven per fire.
    ///
    /// The rules of a single fire hold for each: a fire whose request another worker claimed or recorded after this
    /// worker's lease ended is not recorded here (its identifier is the other worker's history entry, or 0); of two
    /// fires listed under one identifier, or setting one app's badge, the later one wins.
    ///
    /// ```swift
    /// let identifiers = try await store.completeFires(fires)   // the history entries, in order
    /// ```
    ///
    /// - Returns: The history entries' identifiers, in the order of `fires`.
    @discardableResult
    public func completeFires(_ fires: [FireCompletion]) async throws -> [Int64] {
        var identifiers: [Int64] = []
        for group in Self.completionGroups(fires) {
            identifiers += try await transaction { connection, logger in
                try await self.complete(group, connection, logger)
            }
        }
        return identifiers
    }

    /// Splits fires, in order, into groups over at most ``appLockLimit`` apps, each revision at most once per group
    /// (a request claimed again after its lease, whose earlier fire is recorded first).
    static func completionGroups(_ fires: [FireCompletion]) -> [[FireCompletion]] {
        var groups: [[FireCompletion]] = []
        var current: [FireCompletion] = []
        var apps = Set<String>()
        var revisions = Set<Int64>()
        for fire in fires {
            let newApp = !apps.contains(fire.request.appID)
            if !current.isEmpty
                && ((newApp && apps.count >= appLockLimit) || revisions.contains(fire.request.revision))
            {
                groups.append(current)
                current = []
                apps = []
                revisions = []
            }
            current.append(fire)
            apps.insert(fire.request.appID)
            revisions.insert(fire.request.revision)
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }

    /// Records one group (distinct revisions, at most ``appLockLimit`` apps) inside the caller's transaction.
    private func complete(_ fires: [FireCompletion], _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [Int64]
    {
        guard !fires.isEmpty else { return [] }
        try await Self.lockApps(fires.map(\.request.appID), connection, logger)
        // Which fires this worker records (see firedElsewhere): one read of every row's claim.
        var rows: [Int64: (owner: String?, nextFire: Double?)] = [:]
        for try await (id, claimOwner, nextFire) in try await connection.query(
            "SELECT id, claim_owner, next_fire FROM pending WHERE id = ANY(\(fires.map(\.request.revision)))",
            logger: logger
        ).decode((Int64, String?, Double?).self) {
            rows[id] = (claimOwner, nextFire)
        }
        var identifiers = [Int64?](repeating: nil, count: fires.count)
        for (index, fire) in fires.enumerated() {
            let due = fire.history.dueDate?.timeIntervalSince1970
            switch rows[fire.request.revision] {
            case let row? where row.owner != nil && row.owner != owner:
                identifiers[index] = 0
            case let row? where row.owner != nil || row.nextFire == due || due == nil:
                break
            default:
                // Gone, or unclaimed and moved past this fire: rare (another worker completed it, or the app removed
                // or replaced the request meanwhile), so looked up one by one as a single fire does.
                guard let due else { break }
                for try await id in try await connection.query(
                    """
                    SELECT id FROM history WHERE app = \(fire.request.appID)
                        AND request_identifier = \(fire.history.requestIdentifier)
                        AND due = \(due) AND outcome = \(fire.history.outcome.rawValue) LIMIT 1
                    """, logger: logger
                ).decode(Int64.self) {
                    identifiers[index] = id
                }
            }
        }
        let recorded = fires.indices.filter { identifiers[$0] == nil }
        guard !recorded.isEmpty else { return identifiers.map { $0 ?? 0 } }
        try await Self.updatePending(recorded.map { fires[$0] }, connection, logger)
        let historyIDs = try await Self.appendHistoryReturningIDs(
            recorded.map { fires[$0].history }, connection, logger)
        for (index, id) in zip(recorded, historyIDs) { identifiers[index] = id }
        // The later of two deliveries under one identifier, and the later of two badges of one app, win.
        var delivered: [String: DeliveredNotification] = [:]
        var deliveredOrder: [String] = []
        var badges: [String: Int] = [:]
        for (index, id) in zip(recorded, historyIDs) {
            let fire = fires[index]
            if var notification = fire.delivered {
                notification.historyID = id
                let key = notification.appID + "\u{0}" + notification.identifier
                if delivered.updateValue(notification, forKey: key) == nil { deliveredOrder.append(key) }
            }
            if let badge = fire.badge { badges[fire.request.appID] = badge }
        }
        try await Self.upsertDelivered(deliveredOrder.compactMap { delivered[$0] }, connection, logger)
        if !badges.isEmpty {
            let apps = badges.keys.sorted()
            let counts = apps.map { badges[$0] ?? 0 }
            try await connection.query(
                """
                INSERT INTO app (id, authorization_status, granted_options, badge)
                SELECT id, 0, 0, badge FROM unnest(\(apps)::text[], \(counts)::int8[]) AS t(id, badge)
                ON CONFLICT (id) DO UPDATE SET badge = excluded.badge
                """, logger: logger)
        }
        return identifiers.map { $0 ?? 0 }
    }

    /// Moves the fired requests on, as ``completeFire(_:nextFireDate:delivered:history:badge:)`` does for one: deletes
    /// those that do not fire again (and the floating plans nothing follows any more), dates the repeating ones, marks
    /// the floating ones as fired for their plan's instant, and releases their claims.
    private static func updatePending(_ fires: [FireCompletion], _ connection: PostgresConnection, _ logger: Logger)
        async throws
    {
        var deleted: [Int64] = []
        var prunedApps = Set<String>()
        var dated: (ids: [Int64], next: [Double]) = ([], [])
        var floating: (ids: [Int64], firedFor: [Double]) = ([], [])
        for fire in fires {
            let request = fire.request
            switch (fire.nextFireDate, request.isFloating) {
            case (nil, _) where isRepeatingLocation(request):
                // Waits, undated, for its next crossing, unless a newer crossing made it due again meanwhile (rare:
                // one statement each, as for a single fire).
                let fired = request.nextFireDate?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude
                try await connection.query(
                    """
                    UPDATE pending SET claim_until = NULL, claim_owner = NULL,
                    next_fire = CASE WHEN next_fire > \(fired) THEN next_fire ELSE NULL END WHERE id = \(request.revision)
                    """, logger: logger)
            case (nil, _):
                deleted.append(request.revision)
                if request.isFloating { prunedApps.insert(request.appID) }
            case (_?, true):
                // The plan moves on once every request following it has fired (see exhaustedFloatingPlans).
                floating.ids.append(request.revision)
                floating.firedFor.append(request.nextFireDate?.timeIntervalSince1970 ?? .nan)
            case (let next?, false):
                dated.ids.append(request.revision)
                dated.next.append(next.timeIntervalSince1970)
            }
        }
        if !deleted.isEmpty {
            try await connection.query("DELETE FROM pending WHERE id = ANY(\(deleted))", logger: logger)
        }
        if !prunedApps.isEmpty { try await pruneFloatingPlans(apps: prunedApps.sorted(), connection, logger) }
        if !dated.ids.isEmpty {
            try await connection.query(
                """
                UPDATE pending SET next_fire = t.next_fire, claim_until = NULL, claim_owner = NULL
                FROM unnest(\(dated.ids)::int8[], \(dated.next)::float8[]) AS t(id, next_fire) WHERE pending.id = t.id
                """, logger: logger)
        }
        if !floating.ids.isEmpty {
            try await connection.query(
                """
                UPDATE pending SET claim_until = NULL, claim_owner = NULL, fired_for = NULLIF(t.fired_for, 'NaN')
                FROM unnest(\(floating.ids)::int8[], \(floating.firedFor)::float8[]) AS t(id, fired_for)
                WHERE pending.id = t.id
                """, logger: logger)
        }
    }

    /// Appends entries in one statement, in order, and returns their new identifiers in the same order (identity
    /// values are drawn row after row as the ordered rows are inserted, so the returned ones, sorted, follow them).
    static func appendHistoryReturningIDs(
        _ entries: [HistoryEntry], _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64] {
        guard !entries.isEmpty else { return [] }
        var ids: [Int64] = []
        for try await id in try await connection.query(
            """
            INSERT INTO history (app, request_identifier, title, due, acted_at, presenter, presentation, outcome, detail)
            SELECT app, request_identifier, title, NULLIF(due, 'NaN'), acted_at, presenter, presentation, outcome,
                CASE WHEN has_detail THEN detail END
            FROM unnest(\(entries.map(\.appID))::text[], \(entries.map(\.requestIdentifier))::text[],
                \(entries.map(\.title))::text[], \(entries.map { $0.dueDate?.timeIntervalSince1970 ?? .nan })::float8[],
                \(entries.map(\.actedAt.timeIntervalSince1970))::float8[], \(entries.map(\.presenter))::text[],
                \(entries.map { Int64($0.presentation.rawValue) })::int8[], \(entries.map(\.outcome.rawValue))::text[],
                \(entries.map { $0.detail ?? "" })::text[], \(entries.map { $0.detail != nil })::bool[])
                WITH ORDINALITY AS t(app, request_identifier, title, due, acted_at, presenter, presentation, outcome,
                    detail, has_detail, n)
            ORDER BY n
            RETURNING id
            """, logger: logger
        ).decode(Int64.self) {
            ids.append(id)
        }
        return ids.sorted()
    }

    /// Lists delivered notifications (distinct app and identifier pairs), replacing what is listed under the same
    /// identifier.
    private static func upsertDelivered(
        _ notifications: [DeliveredNotification], _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        guard !notifications.isEmpty else { return }
        let payloads = try notifications.map { ByteBuffer(bytes: try JSON.encode($0)) }
        try await connection.query(
            """
            INSERT INTO delivered (app, identifier, payload, date, history_id)
            SELECT app, identifier, payload, date, history_id
            FROM unnest(\(notifications.map(\.appID))::text[], \(notifications.map(\.identifier))::text[],
                \(payloads)::bytea[], \(notifications.map(\.date.timeIntervalSince1970))::float8[],
                \(notifications.map { $0.historyID ?? 0 })::int8[]) AS t(app, identifier, payload, date, history_id)
            ON CONFLICT (app, identifier) DO UPDATE SET payload = excluded.payload, date = excluded.date,
                history_id = excluded.history_id
            """, logger: logger)
    }
}
