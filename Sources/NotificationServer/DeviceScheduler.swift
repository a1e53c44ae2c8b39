import Foundation
import NotificationEngine
import NotificationModel
import NotificationStorePostgres

/// Server mode's Swift API for backends: registers devices and schedules requests for them, on the engine and the
/// PostgreSQL store a worker runs.
///
/// A request scheduled for a device is stored under the device's app identity (``Device/appID``), so everything the
/// engine does per app holds per device: a request replaces the device's pending request with the same identifier,
/// cancelling stops a repeating request, and the engine's pending cap counts each device's requests.
///
/// Floating calendar components (no `timeZoneIdentifier`) are planned in the device's zone: the request is stored
/// with the device's zone pinned in its components, and the store remembers that it was floating. When the device's
/// zone changes (``register(_:)`` with another zone), those requests are pinned to the new zone and planned again;
/// requests whose components named a zone themselves keep it. DST gaps and overlaps follow the engine's rules in the
/// device's zone (a time in a gap fires at the first instant after it, a time in an overlap once).
///
/// ```swift
/// let devices = DeviceScheduler(store: store, scheduler: scheduler)
/// try await devices.register(
///     DeviceRegistration(
///         id: "user-42-phone", token: hexToken, topic: "com.example.app", environment: .production,
///         timeZoneIdentifier: "Europe/Paris", localeIdentifier: "fr_FR"))
/// var nine = CalendarComponents()
/// (nine.weekday, nine.hour) = (2, 9)
/// try await devices.schedule(
///     RequestSpec(identifier: "weekly", content: content, trigger: .calendar(nine, repeats: true, matching: .apple)),
///     forDevice: "user-42-phone")  // Mondays at 9:00 in Paris
/// ```
public struct DeviceScheduler: Sendable {
    /// The store the worker runs on.
    public let store: PostgresNotificationStore
    /// The engine requests are added through (its clock dates registrations).
    public let scheduler: NotificationScheduler

    /// Creates the API on a worker's store and engine.
    ///
    /// - Parameters:
    ///   - store: The PostgreSQL store, migrated.
    ///   - scheduler: The engine running on `store`.
    public init(store: PostgresNotificationStore, scheduler: NotificationScheduler) {
        self.store = store
        self.scheduler = scheduler
    }

    // MARK: - Devices

    /// Registers a device, or updates it (registering again makes an inactive device active); a changed zone re-plans
    /// the device's floating requests in the new zone.
    ///
    /// - Returns: The device as stored.
    /// - Throws: ``DeviceError`` for invalid input (nothing changes then); `EngineError` or the store's errors when
    ///   re-planning fails (the device is stored; registering again re-plans).
    @discardableResult
    public func register(_ registration: DeviceRegistration) async throws -> Device {
        let (device, previous) = try await store.registerDevice(registration, at: scheduler.clock.now)
        if let previous, previous.timeZoneIdentifier != device.timeZoneIdentifier {
            try await repin(device)
        }
        return device
    }

    /// The device with this identifier, or `nil`.
    public func device(id: String) async throws -> Device? {
        try await store.device(id: id)
    }

    /// Every registered device, by identifier.
    ///
    /// - Parameter activeOnly: Leave out the devices APNs reported gone.
    public func devices(activeOnly: Bool = false) async throws -> [Device] {
        try await store.devices(activeOnly: activeOnly)
    }

    /// Removes a device and everything pending for it.
    ///
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``.
    public func remove(deviceID: String) async throws {
        try await store.removeDevice(id: deviceID, at: scheduler.clock.now)
        scheduler.storeDidChange()
    }

    // MARK: - Requests

    /// Schedules a request for a device, replacing its pending request with the same identifier.
    ///
    /// Floating calendar components are planned in the device's zone (see the type's discussion).
    ///
    /// - Throws: ``DeviceError`` for an unknown or inactive device; `EngineError` for a trigger the engine refuses
    ///   (`invalidTrigger`, `invalidNoDate`) or a store failure.
    public func schedule(_ spec: RequestSpec, forDevice deviceID: String) async throws {
        let device = try await activeDevice(deviceID)
        let floating = Self.isFloating(spec)
        try await store.setFloating(floating, identifier: spec.identifier, deviceID: device.id)
        try await scheduler.add(floating ? Self.pinned(spec, to: device.timeZoneIdentifier) : spec, appID: device.appID)
    }

    /// Schedules one request for several devices, each planned in its own zone.
    ///
    /// - Returns: The devices it could not be scheduled for, with why; empty when it was scheduled for all.
    public func schedule(_ spec: RequestSpec, forDevices deviceIDs: [String]) async -> [String: any Error] {
        var failures: [String: any Error] = [:]
        for id in deviceIDs {
            do { try await schedule(spec, forDevice: id) } catch { failures[id] = error }
        }
        return failures
    }

    /// Cancels a device's pending requests: repeating ones fire no more.
    ///
    /// - Parameters:
    ///   - identifiers: The requests to cancel; `nil` cancels all of the device's.
    ///   - deviceID: The device.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``; store failures.
    public func cancel(identifiers: [String]?, forDevice deviceID: String) async throws {
        guard let device = try await store.device(id: deviceID) else { throw Self.unknown(deviceID) }
        try await scheduler.removePending(appID: device.appID, identifiers: identifiers)
    }

    /// The device's pending requests, as stored (floating components carry the device's zone).
    ///
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice``; store failures.
    public func pendingRequests(forDevice deviceID: String) async throws -> [PendingRequest] {
        guard let device = try await store.device(id: deviceID) else { throw Self.unknown(deviceID) }
        return try await scheduler.pendingRequests(appID: device.appID)
    }

    // MARK: - Zones

    /// Pins the device's floating requests to its current zone and plans them again from now.
    private func repin(_ device: Device) async throws {
        for request in try await store.floatingRequests(deviceID: device.id) {
            try await scheduler.add(Self.pinned(request.spec, to: device.timeZoneIdentifier), appID: device.appID)
        }
    }

    /// Whether a request has floating calendar components: planned in the device's zone.
    static func isFloating(_ spec: RequestSpec) -> Bool {
        if case .calendar(let components, _, _)? = spec.trigger { return components.isFloating }
        return false
    }

    /// The request with its calendar components pinned to `zone`.
    static func pinned(_ spec: RequestSpec, to zone: String) -> RequestSpec {
        guard case .calendar(var components, let repeats, let matching)? = spec.trigger else { return spec }
        components.timeZoneIdentifier = zone
        var spec = spec
        spec.trigger = .calendar(components, repeats: repeats, matching: matching)
        return spec
    }

    private func activeDevice(_ id: String) async throws -> Device {
        guard let device = try await store.device(id: id) else { throw Self.unknown(id) }
        guard device.isActive else {
            throw DeviceError(.inactiveDevice, "device '\(id)' is inactive: APNs reported its token gone")
        }
        return device
    }

    private static func unknown(_ id: String) -> DeviceError {
        DeviceError(.unknownDevice, "no device has the identifier '\(id)'")
    }
}
