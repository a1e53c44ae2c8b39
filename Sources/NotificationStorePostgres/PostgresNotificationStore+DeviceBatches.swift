import Foundation
import Logging
import NotificationModel
import PostgresNIO

// Server mode's all-or-nothing batches (issue 12): every request of a batch for devices, with the devices' floating
// marks, in one transaction, or nothing.
extension PostgresNotificationStore {
    /// Stores a batch of requests for devices in one transaction, all of them or none: the devices are read and
    /// locked against removal, deactivation and re-registration (`FOR SHARE`), `rows` checks the batch against them
    /// and returns what to store, then the requests are inserted as ``insertPending(batch:cap:at:)`` inserts them
    /// (each replaces its device's pending request with the same identifier, one earlier in the batch too; the pending
    /// cap is applied once per device, after the whole batch) and the floating marks are written, before one `COMMIT`.
    ///
    /// When `rows` throws (a request is refused), nothing is stored and its error is rethrown as is. Since the devices
    /// stay locked until the commit, a device cannot be removed, deactivated or moved to another zone between the
    /// check and the write. `rows` runs again when the server asks for the transaction to be retried (a deadlock or
    /// serialization failure), so it must be a pure function of its input.
    ///
    /// ```swift
    /// let discarded = try await store.insertPending(forDevices: ["paris", "tokyo"], cap: 64, at: now) { devices, denied in
    ///     try batch.map { item in try checkedRow(item, devices[item.deviceID], denied) }  // throws to store nothing
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - deviceIDs: The devices the batch is for (read and locked in the transaction).
    ///   - fallbackCap: As for ``insertPending(batch:cap:at:)``; the store's own cap takes precedence.
    ///   - date: When the batch was accepted, recorded in the history of discarded requests.
    ///   - rows: Given the devices found (by identifier, active or not) and the app identities among theirs that are
    ///     denied notifications, the rows to store; throws to store nothing.
    /// - Returns: The requests the pending cap discarded (possibly some of the batch's).
    /// - Throws: What `rows` throws, or the server's and the connection's errors; nothing is stored then, except when
    ///   the connection was lost while the `COMMIT` was under way, when whether all of it was stored is unknown (never
    ///   a part of it).
    public func insertPending(
        forDevices deviceIDs: [String], cap fallbackCap: Int?, at date: Date,
        _ rows:
            @escaping @Sendable (_ devices: [String: Device], _ deniedAppIDs: Set<String>) throws -> [DeviceBatchRow]
    ) async throws -> [PendingRequest] {
        let ids = Array(Set(deviceIDs)).sorted()
        guard !ids.isEmpty else { return [] }
        return try await transaction { connection, logger in
            // In identifier order, as every batch takes them, so two batches never wait on each other in a cycle.
            let found = try await Self.devices(
                """
                SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = ANY(\(ids)) ORDER BY id FOR SHARE
                """, connection, logger)
            let apps = found.map(\.appID)
            var denied = Set<String>()
            for try await id in try await connection.query(
                """
                SELECT id FROM app
                WHERE id = ANY(\(apps)) AND authorization_status = \(AuthorizationStatus.denied.rawValue)
                """, logger: logger
            ).decode(String.self) {
                denied.insert(id)
            }
            let batch = try rows(Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }), denied)
            guard !batch.isEmpty else { return [] }
            let requests = batch.map(\.request)
            let encoded = try BatchRows(requests)
            let plans = try BatchPlans(requests)
            let batchApps = Set(requests.map(\.appID)).sorted()
            try await Self.lockApps(batchApps, connection, logger)
            let cap = try await Self.policy(connection, logger).pendingCap.map(\.value) ?? fallbackCap
            try await Self.insert(batch: encoded, plans: plans, connection, logger)
            try await Self.writeFloatingMarks(
                batch.map { ($0.deviceID, $0.request.identifier, $0.floating) }, connection, logger)
            guard let cap else { return [] }
            return try await Self.applyCap(cap, apps: batchApps, at: date, connection, logger)
        }
    }
}
