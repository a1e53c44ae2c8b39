import Foundation
import Logging
import NotificationEngine
import NotificationModel
import PostgresNIO

// The push service's pushes (issue 20): the `push` table of migration step 6. A push is stored at once; workers fan
// it out page by page (`fanOutNextPage`), each page in one transaction with the advance of its cursor.
extension PostgresNotificationStore {
    /// The channel migration step 6's trigger notifies when pushes are inserted.
    public static let pushChannel = "unotify_push"

    /// The most pushes one mass push carries.
    public static let maximumPushesPerCall = 100

    /// Stores pushes, all or none, in one transaction; workers fan them out.
    ///
    /// ```swift
    /// try await store.insertPushes([PushMessage(target: .all, content: content, sendTime: .now, createdAt: now)])
    /// ```
    ///
    /// - Throws: ``PushError`` for more than ``maximumPushesPerCall`` pushes, more than
    ///   ``PushTarget/maximumDevices`` device identifiers, a local time without year, month, day, hour and minute,
    ///   or an identifier already used (nothing is stored then); what the server answers.
    public func insertPushes(_ pushes: [PushMessage]) async throws {
        guard pushes.count <= Self.maximumPushesPerCall else {
            throw PushError(
                .tooManyPushes, "\(pushes.count) pushes: one call takes at most \(Self.maximumPushesPerCall)")
        }
        for push in pushes { try Self.check(push) }
        let encoder = JSON.makeEncoder()
        let rows = try pushes.map { push in
            (
                push, try encoder.encode(push.content),
                try push.sendTime.localComponents.map { try encoder.encode($0) },
                push.target.tagExpression.map { Data(Self.jsonText($0.json)) }
            )
        }
        try await transaction { connection, logger in
            for (push, content, local, tag) in rows {
                let inserted = try await Self.count(
                    """
                    WITH i AS (
                        INSERT INTO push (id, target_kind, target_name, target_devices, target_tag, content, send_kind,
                            send_at, local_time, expires_at, collapse_id, mutable_content, content_available,
                            created_at, ready_at, state)
                        VALUES (\(push.id), \(push.target.kind), \(push.target.name), \(push.target.deviceIDs),
                            \(tag), \(content), \(push.sendTime.kind), \(push.sendTime.instant?.timeIntervalSince1970),
                            \(local), \(push.expiresAt?.timeIntervalSince1970), \(push.collapseID),
                            \(push.mutableContent), \(push.contentAvailable), \(push.createdAt.timeIntervalSince1970),
                            \(push.sendTime.readyAt(createdAt: push.createdAt).timeIntervalSince1970), 'scheduled')
                        ON CONFLICT (id) DO NOTHING RETURNING 1)
                    SELECT count(*) FROM i
                    """, connection, logger)
                guard inserted == 1 else {
                    throw PushError(.duplicateMessage, "a push with the message identifier '\(push.id)' exists")
                }
            }
        }
    }

    /// The push with this message identifier, or `nil`.
    ///
    /// - Throws: What the server answers.
    public func push(id: String) async throws -> PushMessage? {
        try await read { connection, logger in
            try await Self.pushes(
                "SELECT \(unescaped: Self.pushColumns) FROM push WHERE id = \(id)", connection, logger
            )
            .first
        }
    }

    /// Cancels a push that is not sent to every device yet: it is fanned out no further, and its pending requests that
    /// no worker is sending right now are removed (counted in ``PushStatistics/cancelled``).
    ///
    /// - Returns: How many devices' requests were removed.
    /// - Throws: ``PushError`` with ``PushError/Code/unknownMessage``, or ``PushError/Code/alreadySent`` when it is
    ///   fanned out and nothing of it is pending any more (or it was cancelled or expired already); what the server
    ///   answers.
    @discardableResult
    public func cancelPush(id: String) async throws -> Int {
        try await transaction { connection, logger in
            guard
                let push = try await Self.pushes(
                    "SELECT \(unescaped: Self.pushColumns) FROM push WHERE id = \(id) FOR UPDATE", connection, logger
                ).first
            else { throw PushError(.unknownMessage, "no push has the message identifier '\(id)'") }
            guard push.state == .scheduled || push.state == .fanning || push.state == .done else {
                throw PushError(.alreadySent, "push '\(id)' is \(push.state.rawValue) already")
            }
            // Every device's lock at once: the requests may belong to any number of devices.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.planLock))", logger: logger)
            let removed = try await Self.count(
                """
                WITH d AS (DELETE FROM pending WHERE identifier = \(push.requestIdentifier)
                    AND app LIKE 'device:%' AND claim_until IS NULL RETURNING 1)
                SELECT count(*) FROM d
                """, connection, logger)
            if push.state == .done && removed == 0 {
                throw PushError(.alreadySent, "push '\(id)' is sent to every device it reached")
            }
            try await connection.query(
                "UPDATE push SET state = 'cancelled', cancelled = cancelled + \(removed) WHERE id = \(id)",
                logger: logger)
            return removed
        }
    }

    /// The earliest instant a push waits for (its send time), or `nil` when none waits.
    ///
    /// - Throws: What the server answers.
    public func nextPushReady() async throws -> Date? {
        try await read { connection, logger in
            var next: Double?
            for try await value in try await connection.query(
                "SELECT min(ready_at) FROM push WHERE state IN ('scheduled', 'fanning')", logger: logger
            ).decode(Double?.self) {
                next = value
            }
            return next.map(Date.init(timeIntervalSince1970:))
        }
    }

    /// What one call of ``fanOutNextPage(at:pageSize:cap:)`` did.
    public struct FanOutPage: Sendable, Hashable {
        /// The push.
        public var messageID: String
        /// Devices enqueued by this page.
        public var enqueued: Int
        /// Whether the push is fanned out completely (or expired) now.
        public var finished: Bool
    }

    /// Fans out one page of one ready push: takes a push whose send time has come and that no other worker is
    /// fanning out this moment (`FOR UPDATE SKIP LOCKED`), reads up to `pageSize` of its reached devices after its
    /// cursor, adds a pending request `push:<id>` for each, and advances the cursor, all in one transaction. A
    /// worker that dies in the middle loses its transaction and nothing else: the next page starts at the committed
    /// cursor, so no device is enqueued twice or skipped.
    ///
    /// A device's request fires at once (``PushSendTime/now`` and ``PushSendTime/at(_:)``, fanned out when due), or
    /// at the local time in the device's zone (``PushSendTime/localTime(_:)``; at once when that is past).
    ///
    /// - Parameters:
    ///   - date: Now.
    ///   - pageSize: The most devices in one page.
    ///   - cap: The pending cap per device when the store's policy sets none (the engine's), applied as
    ///     ``insertPending(batch:cap:at:)`` does: a device over it keeps its soonest requests.
    /// - Returns: What was done, or `nil` when no push is ready.
    /// - Throws: What the server answers (then nothing of the page is stored).
    public func fanOutNextPage(at date: Date, pageSize: Int = 500, cap: Int?) async throws -> FanOutPage? {
        let now = date.timeIntervalSince1970
        return try await transaction { connection, logger in
            guard
                let push = try await Self.pushes(
                    """
                    SELECT \(unescaped: Self.pushColumns) FROM push
                    WHERE state IN ('scheduled', 'fanning') AND ready_at <= \(now)
                    ORDER BY ready_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
                    """, connection, logger
                ).first
            else { return nil }
            if let expiry = push.expiresAt, expiry <= date {
                try await connection.query("UPDATE push SET state = 'expired' WHERE id = \(push.id)", logger: logger)
                return FanOutPage(messageID: push.id, enqueued: 0, finished: true)
            }
            var cursor: String?
            for try await value in try await connection.query(
                "SELECT cursor FROM push WHERE id = \(push.id)", logger: logger
            ).decode(String?.self) {
                cursor = value
            }
            var devices: [(id: String, zone: String)] = []
            for try await (id, zone) in try await connection.query(
                push.target.pageQuery(after: cursor, limit: max(1, pageSize)), logger: logger
            ).decode((String, String).self) {
                devices.append((id, zone))
            }
            let requests = Self.requests(for: push, devices: devices, at: date)
            if !requests.isEmpty {
                let rows = try BatchRows(page: requests)
                let plans = try BatchPlans(requests)
                let apps = requests.map(\.appID)
                try await Self.lockApps(apps, connection, logger)
                let cap = try await Self.policy(connection, logger).pendingCap.map(\.value) ?? cap
                try await Self.insert(batch: rows, plans: plans, connection, logger)
                if let cap { _ = try await Self.applyCap(cap, apps: apps, at: date, connection, logger) }
            }
            let finished = devices.count < max(1, pageSize)
            try await connection.query(
                """
                UPDATE push SET cursor = \(devices.last?.id ?? cursor), targeted = targeted + \(devices.count),
                    state = \(finished ? "done" : "fanning") WHERE id = \(push.id)
                """, logger: logger)
            return FanOutPage(messageID: push.id, enqueued: devices.count, finished: finished)
        }
    }

    /// A push's statistics, from the fan-out's count and the delivery history of its requests.
    ///
    /// - Returns: `nil` for an unknown message identifier.
    /// - Throws: What the server answers.
    public func pushStatistics(id: String) async throws -> PushStatistics? {
        try await transaction { connection, logger in
            var counts: (Int, Int)?
            for try await row in try await connection.query(
                "SELECT targeted, cancelled FROM push WHERE id = \(id)", logger: logger
            ).decode((Int, Int).self) {
                counts = row
            }
            guard let counts else { return nil }
            let (targeted, cancelled) = counts
            let scope = StatisticsScope.message(id)
            let (accepted, failed) = try await Self.outcomes(scope.outcomesQuery, connection, logger)
            let receipts = try await Self.receiptCounts(scope, connection, logger)
            return PushStatistics(
                messageID: id, targeted: targeted, accepted: accepted, failed: failed, cancelled: cancelled,
                received: receipts.kinds["received"] ?? 0, opened: receipts.kinds["opened"] ?? 0,
                dismissed: receipts.kinds["dismissed"] ?? 0, actions: receipts.actions,
                byHour: try await Self.hours(scope, connection, logger))
        }
    }

    /// The message identifiers of the newest pushes, newest first (by creation, then identifier).
    ///
    /// - Parameter limit: The most identifiers.
    /// - Throws: What the server answers.
    public func newestPushIDs(limit: Int) async throws -> [String] {
        try await read { connection, logger in
            var ids: [String] = []
            for try await id in try await connection.query(
                "SELECT id FROM push ORDER BY created_at DESC, id DESC LIMIT \(max(0, limit))", logger: logger
            ).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }

    /// A page of pushes, newest first (by creation, then identifier): the newest, or those older than the push
    /// `before` (none when no push has that identifier).
    ///
    /// ```swift
    /// let first = try await store.newestPushes(limit: 25)
    /// let next = try await store.newestPushes(limit: 25, before: first.last?.id)
    /// ```
    ///
    /// - Parameters:
    ///   - limit: The most pushes.
    ///   - before: The message identifier the page starts after (the last one of the previous page).
    /// - Throws: What the server answers.
    public func newestPushes(limit: Int, before: String? = nil) async throws -> [PushMessage] {
        let limit = max(0, limit)
        return try await read { connection, logger in
            guard let before else {
                return try await Self.pushes(
                    """
                    SELECT \(unescaped: Self.pushColumns) FROM push ORDER BY created_at DESC, id DESC LIMIT \(limit)
                    """, connection, logger)
            }
            return try await Self.pushes(
                """
                SELECT \(unescaped: Self.pushColumns) FROM push
                WHERE (created_at, id) < (SELECT b.created_at, b.id FROM push b WHERE b.id = \(before))
                ORDER BY created_at DESC, id DESC LIMIT \(limit)
                """, connection, logger)
        }
    }

    /// The topics (apps) of the registered devices, in order, at most `limit`.
    ///
    /// - Throws: What the server answers.
    public func deviceTopics(limit: Int) async throws -> [String] {
        try await read { connection, logger in
            var topics: [String] = []
            for try await topic in try await connection.query(
                "SELECT DISTINCT topic FROM device ORDER BY topic LIMIT \(max(0, limit))", logger: logger
            ).decode(String.self) {
                topics.append(topic)
            }
            return topics
        }
    }

    /// The statistics of every push to the devices of one topic (an app), over the pushes created in a period.
    ///
    /// - Parameters:
    ///   - topic: The APNs topic (bundle identifier) of the devices.
    ///   - since: Only pushes created at or after it; `nil` for all.
    /// - Throws: What the server answers.
    public func pushStatistics(topic: String, since: Date? = nil) async throws -> PushStatistics {
        let since = since?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude
        return try await transaction { connection, logger in
            let scope = StatisticsScope.topic(topic, since: since)
            let (accepted, failed) = try await Self.outcomes(scope.outcomesQuery, connection, logger)
            // Fanned-out and cancelled requests are counted per push; a topic's share of them is read from the
            // pending rows and the history (requests not sent yet are pending).
            let pending = try await Self.count(
                """
                SELECT count(*) FROM pending q JOIN push p ON q.identifier = 'push:' || p.id
                JOIN device d ON q.app = 'device:' || d.id
                WHERE d.topic = \(topic) AND p.created_at >= \(since)
                """, connection, logger)
            let sent = accepted + failed.values.reduce(0, +)
            let receipts = try await Self.receiptCounts(scope, connection, logger)
            return PushStatistics(
                messageID: nil, targeted: sent + pending, accepted: accepted, failed: failed, cancelled: 0,
                received: receipts.kinds["received"] ?? 0, opened: receipts.kinds["opened"] ?? 0,
                dismissed: receipts.kinds["dismissed"] ?? 0, actions: receipts.actions,
                byHour: try await Self.hours(scope, connection, logger))
        }
    }

    // MARK: - Helpers

    /// Whose statistics: one push, or every push created since an instant to the devices of one topic.
    enum StatisticsScope {
        case message(String)
        case topic(String, since: Double)

        /// `(outcome, detail, count)` of the history entries of the scope's requests.
        var outcomesQuery: PostgresQuery {
            switch self {
            case .message(let id):
                """
                SELECT outcome, detail, count(*)::bigint FROM history
                WHERE request_identifier = \(PushMessage.requestIdentifier(forMessage: id)) AND app LIKE 'device:%'
                GROUP BY outcome, detail
                """
            case .topic(let topic, let since):
                """
                SELECT h.outcome, h.detail, count(*)::bigint FROM history h
                JOIN push p ON h.request_identifier = 'push:' || p.id
                JOIN device d ON h.app = 'device:' || d.id
                WHERE d.topic = \(topic) AND p.created_at >= \(since)
                GROUP BY h.outcome, h.detail
                """
            }
        }

        /// `(hour, accepted, failed)` of the scope's history entries, by the hour they were recorded.
        var answersByHourQuery: PostgresQuery {
            switch self {
            case .message(let id):
                """
                SELECT floor(acted_at / 3600) * 3600,
                    count(*) FILTER (WHERE outcome IN ('delivered', 'silenced')),
                    count(*) FILTER (WHERE outcome NOT IN ('delivered', 'silenced'))
                FROM history WHERE request_identifier = \(PushMessage.requestIdentifier(forMessage: id))
                    AND app LIKE 'device:%'
                GROUP BY 1
                """
            case .topic(let topic, let since):
                """
                SELECT floor(h.acted_at / 3600) * 3600,
                    count(*) FILTER (WHERE h.outcome IN ('delivered', 'silenced')),
                    count(*) FILTER (WHERE h.outcome NOT IN ('delivered', 'silenced'))
                FROM history h
                JOIN push p ON h.request_identifier = 'push:' || p.id
                JOIN device d ON h.app = 'device:' || d.id
                WHERE d.topic = \(topic) AND p.created_at >= \(since)
                GROUP BY 1
                """
            }
        }

        /// `(hour, kind, count)` of the scope's received and opened receipts, by the hour the device gave.
        var receiptsByHourQuery: PostgresQuery {
            switch self {
            case .message(let id):
                """
                SELECT floor(at / 3600) * 3600, kind, count(*)::bigint FROM push_receipt
                WHERE message_id = \(id) AND kind IN ('received', 'opened') GROUP BY 1, 2
                """
            case .topic(let topic, let since):
                """
                SELECT floor(r.at / 3600) * 3600, r.kind, count(*)::bigint FROM push_receipt r
                JOIN push p ON p.id = r.message_id JOIN device d ON d.id = r.device_id
                WHERE d.topic = \(topic) AND p.created_at >= \(since) AND r.kind IN ('received', 'opened')
                GROUP BY 1, 2
                """
            }
        }

        /// `(kind, action, count)` of the scope's receipts.
        var receiptsQuery: PostgresQuery {
            switch self {
            case .message(let id):
                """
                SELECT kind, action, count(*)::bigint FROM push_receipt WHERE message_id = \(id)
                GROUP BY kind, action
                """
            case .topic(let topic, let since):
                """
                SELECT r.kind, r.action, count(*)::bigint FROM push_receipt r
                JOIN push p ON p.id = r.message_id JOIN device d ON d.id = r.device_id
                WHERE d.topic = \(topic) AND p.created_at >= \(since)
                GROUP BY r.kind, r.action
                """
            }
        }
    }

    /// The figures by hour: answers from the history by the hour they were recorded, receipts by their time.
    static func hours(_ scope: StatisticsScope, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [PushStatistics.Hour]
    {
        var hours: [Double: PushStatistics.Hour] = [:]
        func hour(_ start: Double) -> PushStatistics.Hour {
            hours[start] ?? PushStatistics.Hour(start: Date(timeIntervalSince1970: start))
        }
        for try await (start, accepted, failed) in try await connection.query(
            scope.answersByHourQuery, logger: logger
        ).decode((Double, Int, Int).self) {
            var value = hour(start)
            (value.accepted, value.failed) = (accepted, failed)
            hours[start] = value
        }
        for try await (start, kind, count) in try await connection.query(
            scope.receiptsByHourQuery, logger: logger
        ).decode((Double, String, Int).self) {
            var value = hour(start)
            if kind == PushReceipt.Kind.received.rawValue { value.received = count } else { value.opened = count }
            hours[start] = value
        }
        return hours.keys.sorted().compactMap { hours[$0] }
    }

    static let pushColumns =
        "id, target_kind, target_name, target_devices, target_tag, content, send_kind, send_at, local_time, expires_at, created_at, state, targeted, collapse_id, mutable_content, content_available"

    /// A row of ``pushColumns``.
    private typealias Row = (
        String, String, String?, [String]?, Data?, Data, String, Double?, Data?, Double?, Double, String, Int, String?,
        Bool, Bool
    )

    static func pushes(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [PushMessage]
    {
        var pushes: [PushMessage] = []
        let decoder = JSONDecoder()
        for try await row in try await connection.query(query, logger: logger).decode(
            Row.self
        ) {
            let (
                id, kind, name, devices, tag, content, sendKind, sendAt, local, expires, created, state, targeted,
                collapseID, mutableContent, contentAvailable
            ) = row
            let target: PushTarget
            switch kind {
            case "devices": target = .devices(devices ?? [])
            case "account": target = .account(name ?? "")
            case "alias": target = .alias(name ?? "")
            case "tag":
                guard let tag, let expression = try? TagExpression(jsonText: tag) else { continue }
                target = .tag(expression)
            default: target = .all
            }
            let sendTime: PushSendTime
            switch sendKind {
            case "at": sendTime = .at(Date(timeIntervalSince1970: sendAt ?? created))
            case "local":
                guard let local, let components = try? decoder.decode(CalendarComponents.self, from: local) else {
                    continue
                }
                sendTime = .localTime(components)
            default: sendTime = .now
            }
            // A row this version cannot read (a newer one's, or damaged) is left out, as unreadable pending rows are.
            guard let payload = try? decoder.decode(NotificationPayload.self, from: content),
                let state = PushMessage.State(rawValue: state)
            else { continue }
            var push = PushMessage(
                id: id, target: target, content: payload, sendTime: sendTime,
                expiresAt: expires.map(Date.init(timeIntervalSince1970:)), collapseID: collapseID,
                createdAt: Date(timeIntervalSince1970: created))
            push.state = state
            push.targeted = targeted
            push.mutableContent = mutableContent
            push.contentAvailable = contentAvailable
            pushes.append(push)
        }
        return pushes
    }

    /// Accepted and failed-by-reason counts from `(outcome, detail, count)` rows of the history.
    static func outcomes(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> (accepted: Int, failed: [String: Int])
    {
        var accepted = 0
        var failed: [String: Int] = [:]
        for try await (outcome, detail, count) in try await connection.query(query, logger: logger).decode(
            (String, String?, Int).self)
        {
            if outcome == HistoryEntry.Outcome.delivered.rawValue || outcome == HistoryEntry.Outcome.silenced.rawValue {
                accepted += count
            } else {
                failed[detail ?? outcome, default: 0] += count
            }
        }
        return (accepted, failed)
    }

    /// The pending requests of one page: one per device, `push:<id>`, the push's content with the message identifier
    /// in `userInfo`, and its expiry and collapse identifier for APNs (``PushMessage/apnsOptions``).
    static func requests(for push: PushMessage, devices: [(id: String, zone: String)], at date: Date)
        -> [PendingRequest]
    {
        var content = push.content
        content.userInfo[PushMessage.messageIDKey] = .string(push.id)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        var fireByZone: [String: Date] = [:]
        let apns = push.apnsOptions
        return devices.map { device in
            var trigger: TriggerSpec?
            var fire = date
            if case .localTime(var components) = push.sendTime {
                components.timeZoneIdentifier = device.zone
                let local = TriggerSpec.calendar(components, repeats: false, matching: .apple)
                let next =
                    fireByZone[device.zone]
                    ?? TriggerPlanner.firstFireDate(for: local, addedAt: date, calendar: utc) ?? date
                fireByZone[device.zone] = next
                // A zone already past the time gets it at once (no trigger: nothing to match any more).
                if next > date {
                    trigger = local
                    fire = next
                }
            }
            return PendingRequest(
                appID: Device.appID(forDevice: device.id),
                spec: RequestSpec(identifier: push.requestIdentifier, content: content, trigger: trigger, apns: apns),
                addedAt: date, nextFireDate: fire)
        }
    }

    static func check(_ push: PushMessage) throws(PushError) {
        guard !push.id.isEmpty, push.id.count <= 128 else {
            throw PushError(.invalidPush, "a message identifier has 1 to 128 characters")
        }
        if let collapseID = push.collapseID,
            collapseID.isEmpty || collapseID.utf8.count > APNsOptions.collapseIDLimit
        {
            throw PushError(
                .invalidPush, "a collapse identifier has 1 to \(APNsOptions.collapseIDLimit) bytes (UTF-8)")
        }
        switch push.target {
        case .devices(let ids):
            guard !ids.isEmpty, ids.count <= PushTarget.maximumDevices else {
                throw PushError(
                    .tooManyDevices,
                    "\(ids.count) device identifiers: a push lists 1 to \(PushTarget.maximumDevices)")
            }
        case .account(let name), .alias(let name):
            do { try checkName(name, what: push.target.kind) } catch {
                throw PushError(.invalidPush, error.message)
            }
        case .tag, .all: break
        }
        if case .localTime(let components) = push.sendTime {
            guard components.year != nil, components.month != nil, components.day != nil, components.hour != nil,
                components.minute != nil, components.timeZoneIdentifier == nil
            else {
                throw PushError(
                    .invalidPush, "a local send time has a year, month, day, hour and minute, and no zone")
            }
            // A day the month does not have (30 February) would match no date, and every device would get it at
            // once: refused.
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            var wall = components.dateComponents
            wall.timeZone = nil
            let read = utc.date(from: wall).map { utc.dateComponents([.year, .month, .day, .hour, .minute], from: $0) }
            guard let read, read.year == components.year, read.month == components.month, read.day == components.day,
                read.hour == components.hour, read.minute == components.minute
            else {
                throw PushError(.invalidPush, "the local send time names a date that does not exist")
            }
        }
    }

    static func jsonText(_ value: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}

extension PushTarget {
    /// The account or alias name.
    var name: String? {
        switch self {
        case .account(let name), .alias(let name): name
        default: nil
        }
    }

    /// The listed device identifiers.
    var deviceIDs: [String]? {
        if case .devices(let ids) = self { return ids }
        return nil
    }

    var tagExpression: TagExpression? {
        if case .tag(let expression) = self { return expression }
        return nil
    }

    /// The active devices reached after `after`, by identifier, with their zones. Fixed SQL text, bind parameters
    /// only.
    func pageQuery(after: String?, limit: Int) -> PostgresQuery {
        var binds = PostgresBindings()
        var sql = "SELECT d.id, d.time_zone FROM device d WHERE d.active"
        switch self {
        case .devices(let ids):
            binds.append(ids)
            sql += " AND d.id = ANY($\(binds.count)::text[])"
        case .account(let account):
            binds.append(account)
            sql += " AND d.id IN (SELECT device_id FROM device_account WHERE account = $\(binds.count))"
        case .alias(let alias):
            binds.append(alias)
            sql += " AND d.id IN (SELECT device_id FROM device_alias WHERE alias = $\(binds.count))"
        case .tag(let expression):
            sql += " AND " + expression.condition(&binds)
        case .all:
            break
        }
        if let after {
            binds.append(after)
            sql += " AND d.id > $\(binds.count)"
        }
        binds.append(limit)
        sql += " ORDER BY d.id LIMIT $\(binds.count)"
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}

extension PushSendTime {
    var kind: String {
        switch self {
        case .now: "now"
        case .at: "at"
        case .localTime: "local"
        }
    }

    var instant: Date? {
        if case .at(let date) = self { return date }
        return nil
    }

    var localComponents: CalendarComponents? {
        if case .localTime(let components) = self { return components }
        return nil
    }
}

extension PostgresNotificationStore {
    /// Listens for added pushes on one of the pool's connections, until the task is cancelled or the connection fails:
    /// `onChange` runs once for each committed statement that inserted pushes.
    ///
    /// - Parameters:
    ///   - onListening: Runs once `LISTEN` is in effect.
    ///   - onChange: Runs for each notification.
    /// - Throws: What the connection throws when it fails.
    public func listenForPushes(onListening: @Sendable () -> Void, onChange: @Sendable () -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.pushChannel) { notifications in
                onListening()
                for try await _ in notifications { onChange() }
            }
        }
    }
}

extension PostgresNotificationStore.BatchRows {
    /// A fan-out page's rows: one request per device (so none replaces another), all with the push's content, so each
    /// distinct trigger's spec is encoded once rather than once per device (the rows are those `init(_:)` makes).
    init(page requests: [PendingRequest]) throws {
        try self.init([])
        let encoder = JSON.makeEncoder()
        var encoded: [TriggerSpec?: ByteBuffer] = [:]
        for request in requests {
            let spec = try encoded[request.spec.trigger] ?? ByteBuffer(bytes: encoder.encode(request.spec))
            encoded[request.spec.trigger] = spec
            apps.append(request.appID)
            identifiers.append(request.identifier)
            specs.append(spec)
            addedAt.append(request.addedAt.timeIntervalSince1970)
            // Push requests are never floating (a local time is pinned to the device's zone): no plan key.
            nextFire.append(request.nextFireDate?.timeIntervalSince1970 ?? .nan)
            floating.append(false)
            calendarKeys.append("")
            regionStates.append("")
        }
    }
}
