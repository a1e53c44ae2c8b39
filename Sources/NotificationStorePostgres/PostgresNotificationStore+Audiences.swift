import Foundation
import Logging
import PostgresNIO

// The push service's audiences (issue 20): the `device_account`, `device_alias` and `device_tag` tables of migration
// step 5. A device has at most one account and up to `AudienceLimits` aliases and tags; they go with the device when
// it is removed (foreign keys with `ON DELETE CASCADE`), and stay when it is deactivated.
extension PostgresNotificationStore {
    /// Binds a device to an account, replacing the account it had.
    ///
    /// ```swift
    /// try await store.bindAccount("user-42", deviceID: "user-42-phone")
    /// ```
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/invalidName`` or ``DeviceError/Code/unknownDevice``
    ///   (nothing changes then); what the server answers.
    @discardableResult
    public func bindAccount(_ account: String, deviceID: String) async throws -> DeviceAudience {
        try Self.checkName(account, what: "account")
        return try await transaction { connection, logger in
            try await Self.lockDevice(deviceID, connection, logger)
            try await connection.query(
                """
                INSERT INTO device_account (device_id, account) VALUES (\(deviceID), \(account))
                ON CONFLICT (device_id) DO UPDATE SET account = excluded.account
                """, logger: logger)
            return try await Self.audience(deviceID, connection, logger)
        }
    }

    /// Unbinds a device from its account (nothing happens when it has none).
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``; what the server answers.
    @discardableResult
    public func unbindAccount(deviceID: String) async throws -> DeviceAudience {
        try await transaction { connection, logger in
            try await Self.lockDevice(deviceID, connection, logger)
            try await connection.query("DELETE FROM device_account WHERE device_id = \(deviceID)", logger: logger)
            return try await Self.audience(deviceID, connection, logger)
        }
    }

    /// Adds aliases to a device (those it has already are kept once).
    ///
    /// ```swift
    /// try await store.bindAliases(["alice", "alice@work"], deviceID: "user-42-phone")
    /// ```
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/invalidName``, ``DeviceError/Code/tooManyAliases`` (more
    ///   than ``AudienceLimits/aliasesPerDevice`` in all) or ``DeviceError/Code/unknownDevice``: nothing changes
    ///   then; what the server answers.
    @discardableResult
    public func bindAliases(_ aliases: [String], deviceID: String) async throws -> DeviceAudience {
        try await bind(aliases, .alias, deviceID: deviceID)
    }

    /// Removes aliases from a device; `nil` removes all of them. Aliases it does not have are ignored.
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``; what the server answers.
    @discardableResult
    public func unbindAliases(_ aliases: [String]?, deviceID: String) async throws -> DeviceAudience {
        try await unbind(aliases, .alias, deviceID: deviceID)
    }

    /// Adds tags to a device (those it has already are kept once).
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/invalidName``, ``DeviceError/Code/tooManyTags`` (more than
    ///   ``AudienceLimits/tagsPerDevice`` in all) or ``DeviceError/Code/unknownDevice``: nothing changes then; what
    ///   the server answers.
    @discardableResult
    public func bindTags(_ tags: [String], deviceID: String) async throws -> DeviceAudience {
        try await bind(tags, .tag, deviceID: deviceID)
    }

    /// Removes tags from a device; `nil` removes all of them. Tags it does not have are ignored.
    ///
    /// - Returns: The device's audience afterwards.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``; what the server answers.
    @discardableResult
    public func unbindTags(_ tags: [String]?, deviceID: String) async throws -> DeviceAudience {
        try await unbind(tags, .tag, deviceID: deviceID)
    }

    /// A device's account, aliases and tags.
    ///
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``; what the server answers.
    public func audience(deviceID: String) async throws -> DeviceAudience {
        try await transaction { connection, logger in
            guard
                try await Self.count(
                    "SELECT count(*) FROM device WHERE id = \(deviceID)", connection, logger) > 0
            else { throw Self.unknownDevice(deviceID) }
            return try await Self.audience(deviceID, connection, logger)
        }
    }

    /// The devices bound to an account, by identifier, a page at a time.
    ///
    /// - Parameters:
    ///   - account: The account.
    ///   - after: The last identifier of the previous page; `nil` for the first page.
    ///   - limit: How many at most (at most ``AudienceLimits/devicesPerPage``).
    /// - Throws: What the server answers.
    public func devices(account: String, after: String? = nil, limit: Int = AudienceLimits.devicesPerPage)
        async throws -> [Device]
    {
        let limit = min(max(0, limit), AudienceLimits.devicesPerPage)
        return try await read { connection, logger in
            try await Self.devices(
                """
                SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id IN
                    (SELECT device_id FROM device_account WHERE account = \(account))
                AND (\(after)::text IS NULL OR id > \(after)) ORDER BY id LIMIT \(limit)
                """, connection, logger)
        }
    }

    /// The devices that have an alias, by identifier, a page at a time.
    ///
    /// - Parameters:
    ///   - alias: The alias.
    ///   - after: The last identifier of the previous page; `nil` for the first page.
    ///   - limit: How many at most (at most ``AudienceLimits/devicesPerPage``).
    /// - Throws: What the server answers.
    public func devices(alias: String, after: String? = nil, limit: Int = AudienceLimits.devicesPerPage)
        async throws -> [Device]
    {
        let limit = min(max(0, limit), AudienceLimits.devicesPerPage)
        return try await read { connection, logger in
            try await Self.devices(
                """
                SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id IN
                    (SELECT device_id FROM device_alias WHERE alias = \(alias))
                AND (\(after)::text IS NULL OR id > \(after)) ORDER BY id LIMIT \(limit)
                """, connection, logger)
        }
    }

    /// Checks up to ``AudienceLimits/devicesPerCheck`` device identifiers at once: known, active, zone.
    ///
    /// ```swift
    /// let checks = try await store.checkDevices(ids: ["phone-1", "nobody"])
    /// // checks[1].isKnown == false
    /// ```
    ///
    /// - Returns: One check per distinct identifier, in the order first given.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/tooManyDevices`` beyond the limit; what the server answers.
    public func checkDevices(ids: [String]) async throws -> [DeviceCheck] {
        var seen = Set<String>()
        let ids = ids.filter { seen.insert($0).inserted }
        guard ids.count <= AudienceLimits.devicesPerCheck else {
            throw DeviceError(
                .tooManyDevices,
                "\(ids.count) device identifiers: one check takes at most \(AudienceLimits.devicesPerCheck)")
        }
        let found = try await read { connection, logger in
            try await Self.devices(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = ANY(\(ids))", connection, logger)
        }
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.map { id in
            guard let device = byID[id] else {
                return DeviceCheck(
                    deviceID: id, isKnown: false, isActive: false, timeZoneIdentifier: nil, topic: nil,
                    lastRegisteredAt: nil)
            }
            return DeviceCheck(
                deviceID: id, isKnown: true, isActive: device.isActive, timeZoneIdentifier: device.timeZoneIdentifier,
                topic: device.topic, lastRegisteredAt: device.updatedAt)
        }
    }

    /// The active devices whose tags match an expression, by identifier, a page at a time.
    ///
    /// ```swift
    /// let expression = try TagExpression(json: ["and": [["tag": "news"], ["not": ["tag": "muted"]]]])
    /// var page = try await store.deviceIDs(matching: expression, limit: 500)
    /// ```
    ///
    /// - Parameters:
    ///   - expression: The tag expression (compiled to SQL with bind parameters only).
    ///   - after: The last identifier of the previous page; `nil` for the first page.
    ///   - limit: How many at most.
    /// - Throws: What the server answers.
    public func deviceIDs(matching expression: TagExpression, after: String? = nil, limit: Int) async throws
        -> [String]
    {
        let query = expression.deviceQuery(after: after, limit: max(0, limit))
        return try await read { connection, logger in
            var ids: [String] = []
            for try await id in try await connection.query(query, logger: logger).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }

    /// The active devices a target reaches, by identifier, a page at a time: what a push to `target` would fan out
    /// to (unknown and inactive devices of a ``PushTarget/devices(_:)`` list are left out).
    ///
    /// ```swift
    /// var after: String?
    /// while case let page = try await store.deviceIDs(reachedBy: .account("alice"), after: after), !page.isEmpty {
    ///     after = page.last
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - target: Who is reached.
    ///   - after: The last identifier of the previous page; `nil` for the first page.
    ///   - limit: How many at most (at most ``AudienceLimits/devicesPerPage``).
    /// - Throws: What the server answers.
    public func deviceIDs(reachedBy target: PushTarget, after: String? = nil, limit: Int = AudienceLimits.devicesPerPage)
        async throws -> [String]
    {
        let query = target.pageQuery(after: after, limit: min(max(0, limit), AudienceLimits.devicesPerPage))
        return try await read { connection, logger in
            var ids: [String] = []
            for try await (id, _) in try await connection.query(query, logger: logger).decode((String, String).self) {
                ids.append(id)
            }
            return ids
        }
    }

    /// How many active devices' tags match an expression.
    ///
    /// - Throws: What the server answers.
    public func deviceCount(matching expression: TagExpression) async throws -> Int {
        let query = expression.countQuery()
        return try await read { connection, logger in try await Self.count(query, connection, logger) }
    }

    // MARK: - Aliases and tags

    /// Which table a name list lives in. The SQL names below are fixed words, never input.
    enum AudienceKind: Sendable {
        case alias, tag

        var table: String { self == .alias ? "device_alias" : "device_tag" }
        var column: String { self == .alias ? "alias" : "tag" }
        var limit: Int { self == .alias ? AudienceLimits.aliasesPerDevice : AudienceLimits.tagsPerDevice }
        var tooMany: DeviceError.Code { self == .alias ? .tooManyAliases : .tooManyTags }
        var plural: String { self == .alias ? "aliases" : "tags" }
    }

    private func bind(_ names: [String], _ kind: AudienceKind, deviceID: String) async throws -> DeviceAudience {
        for name in names { try Self.checkName(name, what: kind.column) }
        let names = Array(Set(names)).sorted()
        guard names.count <= kind.limit else {
            throw DeviceError(kind.tooMany, "\(names.count) \(kind.plural): a device has at most \(kind.limit)")
        }
        return try await transaction { connection, logger in
            // The device's row lock serializes binds to one device, so the count below holds.
            try await Self.lockDevice(deviceID, connection, logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO \(kind.table) (device_id, \(kind.column)) SELECT $1, unnest($2::text[])
                        ON CONFLICT DO NOTHING
                        """,
                    binds: try Self.bindings(deviceID, names)), logger: logger)
            let count = try await Self.count(
                PostgresQuery(
                    unsafeSQL: "SELECT count(*) FROM \(kind.table) WHERE device_id = $1",
                    binds: try Self.bindings(deviceID)), connection, logger)
            guard count <= kind.limit else {
                throw DeviceError(
                    kind.tooMany,
                    "device '\(deviceID)' would have \(count) \(kind.plural): a device has at most \(kind.limit)")
            }
            return try await Self.audience(deviceID, connection, logger)
        }
    }

    private func unbind(_ names: [String]?, _ kind: AudienceKind, deviceID: String) async throws -> DeviceAudience {
        try await transaction { connection, logger in
            try await Self.lockDevice(deviceID, connection, logger)
            if let names {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "DELETE FROM \(kind.table) WHERE device_id = $1 AND \(kind.column) = ANY($2::text[])",
                        binds: try Self.bindings(deviceID, names)), logger: logger)
            } else {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "DELETE FROM \(kind.table) WHERE device_id = $1",
                        binds: try Self.bindings(deviceID)), logger: logger)
            }
            return try await Self.audience(deviceID, connection, logger)
        }
    }

    // MARK: - Helpers

    /// Locks the device's row for the transaction, or throws `unknownDevice`.
    static func lockDevice(_ id: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let found = try await count(
            "WITH d AS (SELECT 1 FROM device WHERE id = \(id) FOR UPDATE) SELECT count(*) FROM d", connection, logger)
        guard found > 0 else { throw unknownDevice(id) }
    }

    static func unknownDevice(_ id: String) -> DeviceError {
        DeviceError(.unknownDevice, "no device has the identifier '\(id)'")
    }

    static func audience(_ id: String, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> DeviceAudience
    {
        var account: String?
        for try await value in try await connection.query(
            "SELECT account FROM device_account WHERE device_id = \(id)", logger: logger
        ).decode(String.self) {
            account = value
        }
        var aliases: [String] = []
        for try await value in try await connection.query(
            "SELECT alias FROM device_alias WHERE device_id = \(id) ORDER BY alias", logger: logger
        ).decode(String.self) {
            aliases.append(value)
        }
        var tags: [String] = []
        for try await value in try await connection.query(
            "SELECT tag FROM device_tag WHERE device_id = \(id) ORDER BY tag", logger: logger
        ).decode(String.self) {
            tags.append(value)
        }
        return DeviceAudience(deviceID: id, account: account, aliases: aliases, tags: tags)
    }

    static func bindings(_ id: String, _ names: [String]? = nil) throws -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        if let names { binds.append(names) }
        return binds
    }

    /// Refuses an account, alias or tag name that is empty, too long or has control characters.
    static func checkName(_ name: String, what: String) throws(DeviceError) {
        guard !name.isEmpty, name.count <= AudienceLimits.nameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw DeviceError(
                .invalidName,
                "\(what) '\(name.prefix(80))' must have 1 to \(AudienceLimits.nameLength) characters and no control characters"
            )
        }
    }
}
