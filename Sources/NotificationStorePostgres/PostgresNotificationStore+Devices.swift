import Foundation
import Logging
import NotificationModel
import PostgresNIO

// Server mode's device registry (issue 12): the `device` and `device_floating` tables of migration step 2.
extension PostgresNotificationStore {
    /// What notifications a registered device's app identity is authorized for: everything APNs can show.
    static let deviceAuthorization: AuthorizationSet = [.alert, .sound, .badge]

    /// Registers a device, or replaces what is known of it (token, topic, environment, zone, locale), making it active
    /// again; its pending requests stay.
    ///
    /// The device's app identity (``Device/appID``) is authorized for alerts, sounds and badges, so that the engine
    /// presents its requests.
    ///
    /// ```swift
    /// let (device, previous) = try await store.registerDevice(registration, at: clock.now)
    /// if previous?.timeZoneIdentifier != device.timeZoneIdentifier { /* re-pin its floating requests */ }
    /// ```
    ///
    /// - Parameters:
    ///   - registration: What the backend knows of the device.
    ///   - date: The registration's time, recorded as `updatedAt` (and `createdAt` for a new device).
    /// - Returns: The device as stored, and as it was before (`nil` for a new one).
    /// - Throws: ``DeviceError`` for an invalid identifier, token, topic, zone or locale (nothing is stored then);
    ///   what the server answers otherwise.
    @discardableResult
    public func registerDevice(_ registration: DeviceRegistration, at date: Date) async throws
        -> (device: Device, previous: Device?)
    {
        let token = try Self.validated(registration)
        let appID = Device.appID(forDevice: registration.id)
        return try await transaction { connection, logger in
            let previous = try await Self.devices(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = \(registration.id) FOR UPDATE",
                connection, logger
            ).first
            let device = Device(
                id: registration.id, token: token, topic: registration.topic, environment: registration.environment,
                timeZoneIdentifier: registration.timeZoneIdentifier, localeIdentifier: registration.localeIdentifier,
                isActive: true, createdAt: previous?.createdAt ?? date, updatedAt: date)
            try await connection.query(
                """
                INSERT INTO device (id, token, topic, environment, time_zone, locale, active, created_at, updated_at)
                VALUES (\(device.id), \(device.token.hex), \(device.topic), \(device.environment.rawValue),
                    \(device.timeZoneIdentifier), \(device.localeIdentifier), true,
                    \(device.createdAt.timeIntervalSince1970), \(device.updatedAt.timeIntervalSince1970))
                ON CONFLICT (id) DO UPDATE SET token = excluded.token, topic = excluded.topic,
                    environment = excluded.environment, time_zone = excluded.time_zone, locale = excluded.locale,
                    active = true, updated_at = excluded.updated_at
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO app (id, authorization_status, granted_options, badge)
                VALUES (\(appID), \(AuthorizationStatus.authorized.rawValue),
                    \(Int64(Self.deviceAuthorization.rawValue)), 0)
                ON CONFLICT (id) DO UPDATE SET authorization_status = excluded.authorization_status,
                    granted_options = excluded.granted_options
                """, logger: logger)
            return (device, previous)
        }
    }

    /// The device with this identifier, active or not; `nil` when none is registered.
    ///
    /// - Throws: What the server answers.
    public func device(id: String) async throws -> Device? {
        try await read { connection, logger in
            try await Self.devices(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = \(id)", connection, logger
            ).first
        }
    }

    /// The registered devices among these identifiers, active or not, in one query; identifiers no device has are
    /// left out.
    ///
    /// - Throws: What the server answers.
    public func devices(ids: [String]) async throws -> [Device] {
        guard !ids.isEmpty else { return [] }
        let ids = Array(Set(ids))
        return try await read { connection, logger in
            try await Self.devices(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = ANY(\(ids))", connection, logger)
        }
    }

    /// Every registered device, by identifier.
    ///
    /// - Parameter activeOnly: Leave out the devices APNs reported gone.
    /// - Throws: What the server answers.
    public func devices(activeOnly: Bool = false) async throws -> [Device] {
        try await read { connection, logger in
            try await Self.devices(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE active OR NOT \(activeOnly) ORDER BY id",
                connection, logger)
        }
    }

    /// Removes a device with its pending requests (but those a worker is sending, see ``removeAllPending``) and its
    /// app identity's state.
    ///
    /// Its pending requests that came from pushes are recorded as failed (``deviceRemovedReason``), so that each
    /// push's statistics still add up (`sent + cancelled + pending = targeted`).
    ///
    /// - Parameter date: When, for the history.
    /// - Returns: The requests that were pending for it.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice`` when none has that identifier.
    @discardableResult
    public func removeDevice(id: String, at date: Date) async throws -> [PendingRequest] {
        let appID = Device.appID(forDevice: id)
        return try await transaction { connection, logger in
            let removed = try await Self.count(
                "WITH d AS (DELETE FROM device WHERE id = \(id) RETURNING 1) SELECT count(*) FROM d", connection, logger)
            guard removed > 0 else { throw DeviceError(.unknownDevice, "no device has the identifier '\(id)'") }
            try await connection.query("DELETE FROM app WHERE id = \(appID)", logger: logger)
            let dropped = try await Self.removeAllPending(appID: appID, unclaimedAt: date, connection, logger)
            try await Self.recordPushFailures(dropped, reason: Self.deviceRemovedReason, at: date, connection, logger)
            return dropped
        }
    }

    /// Marks a device inactive and removes its pending requests (but those a worker is sending): APNs answered that
    /// its token is gone (410).
    ///
    /// Registering it again (with a new token) makes it active. Its removed requests that came from pushes are
    /// recorded as failed (``deviceGoneReason``), so that each push's statistics still add up.
    ///
    /// - Returns: The requests that were pending for it.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice`` when none has that identifier.
    @discardableResult
    public func deactivateDevice(id: String, at date: Date) async throws -> [PendingRequest] {
        let appID = Device.appID(forDevice: id)
        return try await transaction { connection, logger in
            let changed = try await Self.count(
                """
                WITH d AS (UPDATE device SET active = false, updated_at = \(date.timeIntervalSince1970)
                    WHERE id = \(id) RETURNING 1)
                SELECT count(*) FROM d
                """, connection, logger)
            guard changed > 0 else { throw DeviceError(.unknownDevice, "no device has the identifier '\(id)'") }
            try await connection.query("DELETE FROM device_floating WHERE device_id = \(id)", logger: logger)
            let removed = try await Self.removeAllPending(appID: appID, unclaimedAt: date, connection, logger)
            try await Self.recordPushFailures(removed, reason: Self.deviceGoneReason, at: date, connection, logger)
            return removed
        }
    }

    /// Records whether the device's request `identifier` was scheduled with floating calendar components (stored
    /// pinned to the device's zone), so that a zone change can pin it to the new zone.
    ///
    /// - Throws: What the server answers (a foreign-key violation for an unknown device).
    public func setFloating(_ floating: Bool, identifier: String, deviceID: String) async throws {
        try await transaction { connection, logger in
            if floating {
                try await connection.query(
                    """
                    INSERT INTO device_floating (device_id, identifier) VALUES (\(deviceID), \(identifier))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            } else {
                try await connection.query(
                    "DELETE FROM device_floating WHERE device_id = \(deviceID) AND identifier = \(identifier)",
                    logger: logger)
            }
        }
    }

    /// Records, for many requests at once, whether each was scheduled with floating calendar components, as
    /// ``setFloating(_:identifier:deviceID:)`` does for one, in one statement. A mark for a device that no longer
    /// exists is left out (rather than failing the statement on the foreign key).
    ///
    /// - Parameter marks: Each request's device, identifier and whether it floats; for a device and identifier given
    ///   more than once, the last counts.
    /// - Throws: What the server answers.
    public func setFloating(_ marks: [(deviceID: String, identifier: String, floating: Bool)]) async throws {
        guard !marks.isEmpty else { return }
        try await transaction { connection, logger in try await Self.writeFloatingMarks(marks, connection, logger) }
    }

    /// Writes floating marks in one statement: clears the marks of the requests that do not float, adds the others
    /// (for a device that still exists); for a device and identifier given more than once, the last counts.
    static func writeFloatingMarks(
        _ marks: [(deviceID: String, identifier: String, floating: Bool)], _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        guard !marks.isEmpty else { return }
        var last: [String: Int] = [:]
        for (index, mark) in marks.enumerated() { last[mark.deviceID + "\u{0}" + mark.identifier] = index }
        let kept = marks.indices.filter { last[marks[$0].deviceID + "\u{0}" + marks[$0].identifier] == $0 }
        let devices = kept.map { marks[$0].deviceID }
        let identifiers = kept.map { marks[$0].identifier }
        let floating = kept.map { marks[$0].floating }
        try await connection.query(
            """
            WITH t AS (
                SELECT * FROM unnest(\(devices)::text[], \(identifiers)::text[], \(floating)::bool[])
                    AS t(device_id, identifier, floating)),
            cleared AS (
                DELETE FROM device_floating f USING t
                WHERE f.device_id = t.device_id AND f.identifier = t.identifier AND NOT t.floating)
            INSERT INTO device_floating (device_id, identifier)
            SELECT t.device_id, t.identifier FROM t JOIN device d ON d.id = t.device_id WHERE t.floating
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// The device's pending requests that were scheduled with floating calendar components.
    ///
    /// - Throws: What the server answers.
    public func floatingRequests(deviceID: String) async throws -> [PendingRequest] {
        let appID = Device.appID(forDevice: deviceID)
        return try await read { connection, logger in
            try await Self.pendingRows(
                """
                SELECT \(unescaped: Self.pendingColumns) FROM \(unescaped: Self.pendingJoin)
                WHERE p.app = \(appID) AND p.identifier IN
                    (SELECT identifier FROM device_floating WHERE device_id = \(deviceID))
                ORDER BY p.id
                """, connection, logger
            ).compactMap(\.request)
        }
    }

    // MARK: - Rows

    static let deviceColumns =
        "id, token, topic, environment, time_zone, locale, active, created_at, updated_at"

    static func devices(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [Device]
    {
        var devices: [Device] = []
        for try await (id, token, topic, environment, zone, locale, active, created, updated) in try await connection
            .query(query, logger: logger)
            .decode((String, String, String, String, String, String, Bool, Double, Double).self)
        {
            // Rows are written only through `registerDevice`, which checked both; a row changed by hand that no
            // longer reads is left out, as unreadable pending rows are.
            guard let token = DeviceToken(hex: token), let environment = Device.Environment(rawValue: environment)
            else { continue }
            devices.append(
                Device(
                    id: id, token: token, topic: topic, environment: environment, timeZoneIdentifier: zone,
                    localeIdentifier: locale, isActive: active, createdAt: Date(timeIntervalSince1970: created),
                    updatedAt: Date(timeIntervalSince1970: updated)))
        }
        return devices
    }

    /// The reason a push's statistics give for its requests a device's deactivation removed (APNs answered 410 to
    /// another notification for the device).
    public static let deviceGoneReason = "Device gone (APNs: token no longer valid)"
    /// The reason a push's statistics give for its requests a device's removal removed.
    public static let deviceRemovedReason = "Device removed"

    /// Records, as failed with `reason`, the requests among `removed` that came from pushes: without a history entry
    /// they would count as pending for ever.
    static func recordPushFailures(
        _ removed: [PendingRequest], reason: String, at date: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let prefix = PushMessage.requestIdentifier(forMessage: "")
        let entries = removed.filter { $0.spec.identifier.hasPrefix(prefix) }.map { request in
            HistoryEntry(
                appID: request.appID, requestIdentifier: request.spec.identifier, title: request.spec.content.title,
                dueDate: request.nextFireDate, actedAt: date, presenter: "none", presentation: [], outcome: .skipped,
                detail: reason)
        }
        try await appendHistory(entries, connection, logger)
    }

    /// Deletes every pending request of an app that no worker is sending at `date`, and the plans only they
    /// followed.
    ///
    /// A request a worker holds a live claim on stays: that worker completes it and records its outcome (a crashed
    /// worker's claim ends with its lease, and the next worker finds the device inactive or gone and records that).
    /// Deleting it here would record it twice, or not at all if the worker then crashed.
    static func removeAllPending(
        appID: String, unclaimedAt date: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [PendingRequest] {
        try await lockApps([appID], connection, logger)
        let rows = try await pendingRows(
            """
            DELETE FROM pending p
            WHERE p.app = \(appID) AND (p.claim_until IS NULL OR p.claim_until <= \(date.timeIntervalSince1970))
            RETURNING p.id, p.app, p.spec, p.added_at, p.next_fire, p.calendar_key
            """, connection, logger)
        if rows.contains(where: { $0.calendarKey != nil }) {
            try await pruneFloatingPlans(apps: [appID], connection, logger)
        }
        return rows.sorted { $0.id < $1.id }.compactMap(\.request)
    }

    // MARK: - Validation

    /// Checks a registration and returns its token.
    static func validated(_ registration: DeviceRegistration) throws(DeviceError) -> DeviceToken {
        let id = registration.id
        guard !id.isEmpty, id.count <= 200, !id.unicodeScalars.contains(where: isControl) else {
            throw DeviceError(
                .invalidIdentifier, "a device identifier has 1 to 200 characters and no control characters")
        }
        guard let token = DeviceToken(hex: registration.token) else {
            throw DeviceError(
                .malformedToken,
                "device token '\(registration.token.prefix(80))' is not \(DeviceToken.byteCount * 2) hex digits")
        }
        guard isPlainWord(registration.topic) else {
            throw DeviceError(.invalidTopic, "topic '\(registration.topic.prefix(80))' is empty or has spaces")
        }
        guard TimeZone(identifier: registration.timeZoneIdentifier) != nil else {
            throw DeviceError(
                .unknownTimeZone, "unknown time zone '\(registration.timeZoneIdentifier.prefix(80))'")
        }
        guard isPlainWord(registration.localeIdentifier) else {
            throw DeviceError(
                .invalidLocale, "locale '\(registration.localeIdentifier.prefix(80))' is empty or has spaces")
        }
        return token
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    private static func isPlainWord(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 200
            && !value.unicodeScalars.contains { isControl($0) || $0.properties.isWhitespace }
    }
}
