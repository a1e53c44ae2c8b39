import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres

// All-or-nothing batches (`POST /v1/request-batches` with `"atomic": true`, `unotify server schedule-batch --atomic`).
extension DeviceScheduler {
    /// Schedules many requests, each for its device, all of them or none: every request is checked first, then all
    /// are stored in one PostgreSQL transaction; one refused request, or a store failure, leaves nothing stored.
    ///
    /// The semantics of each request are those of ``schedule(_:)``: it replaces its device's pending request with the
    /// same identifier (one earlier in the batch too: the last one is stored); floating calendar components are pinned
    /// to the device's zone and recorded as floating; the engine's pending cap holds per device, applied after the
    /// whole batch (the soonest-firing requests stay, older ones or the batch's own are discarded and recorded as
    /// such in the history). The checks are those scheduling each request alone makes (device, trigger, content,
    /// a calendar trigger no date matches, an app identity denied notifications), with the same errors.
    ///
    /// The devices are read in the transaction, locked against removal, deactivation and re-registration until it
    /// commits, so a request cannot be stored for a device removed, or pinned to a zone changed, after its check.
    /// The requests are written by the store (``PostgresNotificationStore/insertPending(forDevices:cap:at:_:)``), not
    /// through the engine's `add(contentsOf:)`, whose batch transaction could not hold the floating marks; the fire
    /// dates are the engine's (`NotificationScheduler.checkedFirstFireDate`) and the engine is woken after the commit.
    ///
    /// ```swift
    /// do {
    ///     let result = try await devices.scheduleAll(
    ///         users.map { DeviceRequest(deviceID: $0.phone, spec: RequestSpec(identifier: "nine", content: content, trigger: nine)) })
    ///     print("\(result.added) stored, \(result.discarded.count) discarded by the pending cap")
    /// } catch let error as DeviceBatchError {
    ///     print(error)  // which requests were refused: nothing was stored
    /// }
    /// ```
    ///
    /// - Parameter requests: The requests, in order (as many as one transaction should hold: the HTTP API takes at
    ///   most ``ServerAPIConfiguration/maximumBatchCount``).
    /// - Returns: How many requests were stored (all of them) and which pending requests the cap discarded.
    /// - Throws: ``DeviceBatchError`` naming every refused request (nothing stored); the store's errors (nothing
    ///   stored, except when the connection was lost during the commit: then all of it or nothing was stored, and
    ///   scheduling the batch again, which replaces by identifier, is safe).
    @discardableResult
    public func scheduleAll(_ requests: [DeviceRequest]) async throws -> BatchAddResult {
        guard !requests.isEmpty else { return BatchAddResult(added: 0, discarded: []) }
        let now = scheduler.clock.now
        let calendar = scheduler.clock.calendar
        let discarded = try await store.insertPending(
            forDevices: requests.map(\.deviceID), cap: scheduler.configuration.pendingCap, at: now
        ) { devices, denied in
            try Self.checkedRows(requests, devices: devices, deniedAppIDs: denied, at: now, calendar: calendar)
        }
        scheduler.storeDidChange()
        return BatchAddResult(added: requests.count, discarded: discarded)
    }

    /// Checks every request of an all-or-nothing batch against its device.
    ///
    /// - Returns: The rows to store, in batch order.
    /// - Throws: ``DeviceBatchError`` naming every refused request.
    static func checkedRows(
        _ requests: [DeviceRequest], devices: [String: Device], deniedAppIDs: Set<String>, at now: Date,
        calendar: Calendar
    ) throws -> [DeviceBatchRow] {
        var refusals: [Int: any Error] = [:]
        var rows: [DeviceBatchRow] = []
        rows.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            do {
                let device = try active(devices[request.deviceID], id: request.deviceID)
                let floating = isFloating(request.spec)
                let spec = floating ? pinned(request.spec, to: device.timeZoneIdentifier) : request.spec
                let fireDate = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: calendar)
                guard !deniedAppIDs.contains(device.appID) else {
                    throw EngineError(.notificationsNotAllowed, "notifications are not allowed for \(device.appID)")
                }
                rows.append(
                    DeviceBatchRow(
                        deviceID: device.id,
                        request: PendingRequest(appID: device.appID, spec: spec, addedAt: now, nextFireDate: fireDate),
                        floating: floating))
            } catch {
                refusals[index] = error
            }
        }
        guard refusals.isEmpty else { throw DeviceBatchError(refusals: refusals, count: requests.count) }
        return rows
    }
}
