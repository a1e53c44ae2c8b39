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
        let stored = floating ? Self.pinned(spec, to: device.timeZoneIdentifier) : spec
        // Checked before the mark changes: a refused request leaves the pending one with its identifier, and its mark.
        _ = try NotificationScheduler.checkedFirstFireDate(
            of: stored, at: scheduler.clock.now, calendar: scheduler.clock.calendar)
        try await store.setFloating(floating, identifier: spec.identifier, deviceID: device.id)
        try await scheduler.add(stored, appID: device.appID)
    }

    /// Schedules one request for several devices, each planned in its own zone, as one batch (``schedule(_:)``).
    ///
    /// - Returns: The devices it could not be scheduled for, with why; empty when it was scheduled for all.
    public func schedule(_ spec: RequestSpec, forDevices deviceIDs: [String]) async -> [String: any Error] {
        let failures = await schedule(deviceIDs.map { DeviceRequest(deviceID: $0, spec: spec) })
        var byDevice: [String: any Error] = [:]
        for (index, error) in failures { byDevice[deviceIDs[index]] = error }
        return byDevice
    }

    /// How many requests of a batch go into one store transaction: the engine's batch path holds the store's plan
    /// lock for the whole transaction when a batch spans more than a few devices, so a transaction stays short.
    public static let batchChunkSize = 1_000

    /// Schedules many requests, each for its device, with the semantics of ``schedule(_:forDevice:)`` one after the
    /// other, at the cost of a few statements per thousand requests.
    ///
    /// Each request replaces its device's pending request with the same identifier; floating calendar components are
    /// pinned to the device's zone and recorded as floating (so a zone change re-plans them); the engine's pending cap
    /// holds per device (the soonest-firing requests stay). A request is refused on its own, with the error
    /// ``schedule(_:forDevice:)`` would throw for it, and the others are stored: ``DeviceError`` for an unknown or
    /// inactive device, `EngineError` for a trigger the engine refuses. When the same device and identifier come more
    /// than once, the last one the engine accepts is stored, as one after the other; the ones before it count as
    /// scheduled (and replaced).
    ///
    /// The devices are read in one query and the floating marks written in one statement; the requests go through
    /// the engine's batch path (`NotificationScheduler.add(contentsOf:)`), one transaction per
    /// ``batchChunkSize`` requests. A store failure fails the requests of the transaction it hit (and those after it
    /// when it hit the devices' read or the marks); the chunks stored before stay.
    ///
    /// ```swift
    /// let failures = await devices.schedule(
    ///     users.map { DeviceRequest(deviceID: $0.phone, spec: RequestSpec(identifier: "nine", content: content, trigger: nine)) })
    /// for (index, error) in failures { print("request \(index) not scheduled: \(error)") }
    /// ```
    ///
    /// - Parameter requests: The requests, in order.
    /// - Returns: The indices of the requests that were not scheduled, with why; empty when all were.
    public func schedule(_ requests: [DeviceRequest]) async -> [Int: any Error] {
        var failures: [Int: any Error] = [:]
        guard !requests.isEmpty else { return failures }
        let devices: [String: Device]
        do {
            devices = Dictionary(
                try await store.devices(ids: requests.map(\.deviceID)).map { ($0.id, $0) },
                uniquingKeysWith: { a, _ in a })
        } catch {
            for index in requests.indices { failures[index] = error }
            return failures
        }
        // Each request's checks, as one at a time: its device, then its trigger (pinned to the device's zone).
        let now = scheduler.clock.now
        let calendar = scheduler.clock.calendar
        var accepted: [(index: Int, device: Device, spec: RequestSpec, floating: Bool)] = []
        for (index, request) in requests.enumerated() {
            do {
                let device = try Self.active(devices[request.deviceID], id: request.deviceID)
                let floating = Self.isFloating(request.spec)
                let spec = floating ? Self.pinned(request.spec, to: device.timeZoneIdentifier) : request.spec
                _ = try NotificationScheduler.checkedFirstFireDate(of: spec, at: now, calendar: calendar)
                accepted.append((index, device, spec, floating))
            } catch {
                failures[index] = error
            }
        }
        // The last accepted request of each device and identifier is the one stored; the earlier ones ride with it.
        var winner: [String: Int] = [:]
        for (position, item) in accepted.enumerated() {
            winner[item.device.id + "\u{0}" + item.spec.identifier] = position
        }
        var riders: [Int: [Int]] = [:]
        var stored: [(index: Int, device: Device, spec: RequestSpec, floating: Bool)] = []
        for (position, item) in accepted.enumerated() {
            let last = winner[item.device.id + "\u{0}" + item.spec.identifier]!
            if last == position {
                stored.append(item)
            } else {
                riders[accepted[last].index, default: []].append(item.index)
            }
        }
        func fail(_ index: Int, _ error: any Error) {
            failures[index] = error
            for rider in riders[index] ?? [] { failures[rider] = error }
        }
        do {
            try await store.setFloating(stored.map { ($0.device.id, $0.spec.identifier, $0.floating) })
        } catch {
            for item in stored { fail(item.index, error) }
            return failures
        }
        for start in stride(from: 0, to: stored.count, by: Self.batchChunkSize) {
            var chunk = Array(stored[start..<min(stored.count, start + Self.batchChunkSize)])
            // A refusal here (the clock moved past a calendar trigger's last date since the checks above) names the
            // refused requests: they fail, the rest of the chunk goes again.
            while !chunk.isEmpty {
                do {
                    _ = try await scheduler.add(
                        contentsOf: chunk.map { BatchRequest(appID: $0.device.appID, spec: $0.spec) })
                    break
                } catch let error as BatchAddError {
                    let refused = Set(error.refusals.map(\.index))
                    for refusal in error.refusals { fail(chunk[refusal.index].index, refusal.error) }
                    chunk = chunk.enumerated().filter { !refused.contains($0.offset) }.map(\.element)
                } catch {
                    for item in chunk { fail(item.index, error) }
                    break
                }
            }
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
        try Self.active(try await store.device(id: id), id: id)
    }

    /// The device when it exists and is active.
    /// - Throws: ``DeviceError`` with ``DeviceError/Code/unknownDevice`` or ``DeviceError/Code/inactiveDevice``.
    private static func active(_ device: Device?, id: String) throws -> Device {
        guard let device else { throw unknown(id) }
        guard device.isActive else {
            throw DeviceError(.inactiveDevice, "device '\(id)' is inactive: APNs reported its token gone")
        }
        return device
    }

    private static func unknown(_ id: String) -> DeviceError {
        DeviceError(.unknownDevice, "no device has the identifier '\(id)'")
    }
}
