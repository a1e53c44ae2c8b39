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
    /// The devices are read in one query; the requests go through the engine's batch path
    /// (`NotificationScheduler.add(contentsOf:)`), one transaction per ``batchChunkSize`` requests, each followed by
    /// one statement writing the floating marks of the requests it stored (so a refused request never changes a
    /// mark). A store failure fails the requests of the chunk it hit (and every request, when it hit the devices'
    /// read); the chunks stored before stay. When the marks' statement fails, its chunk's requests are stored but
    /// reported failed: scheduling them again (which replaces them) writes the marks.
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
        // The checks that cost no fire date, as one at a time: the device, then the trigger and content
        // (`NotificationScheduler.check`); the engine computes each fire date once, in `add(contentsOf:)`, and refuses
        // a calendar trigger no date matches there.
        var accepted: [BatchItem] = []
        for (index, request) in requests.enumerated() {
            do {
                let device = try Self.active(devices[request.deviceID], id: request.deviceID)
                let floating = Self.isFloating(request.spec)
                let spec = floating ? Self.pinned(request.spec, to: device.timeZoneIdentifier) : request.spec
                try NotificationScheduler.check(spec)
                accepted.append(BatchItem(index: index, device: device, spec: spec, floating: floating))
            } catch {
                failures[index] = error
            }
        }
        // The last accepted request of each device and identifier goes to the engine; the earlier ones wait behind
        // it, in order, in case the engine refuses it.
        var queues: [String: [BatchItem]] = [:]
        var order: [String] = []
        for item in accepted {
            if queues[item.key] == nil { order.append(item.key) }
            queues[item.key, default: []].append(item)
        }
        var sent = order.map { queues[$0]!.last! }
        var waiting: [String: [BatchItem]] = queues.mapValues { Array($0.dropLast()) }
        func finish(_ item: BatchItem, _ error: (any Error)?) {
            if let error { failures[item.index] = error }
            // Replaced by `item` (or, with it, refused for the store's reason): as one after the other.
            for earlier in waiting[item.key] ?? [] where error != nil { failures[earlier.index] = error }
            waiting[item.key] = nil
        }
        while !sent.isEmpty {
            var chunk = Array(sent.prefix(Self.batchChunkSize))
            sent.removeFirst(chunk.count)
            while !chunk.isEmpty {
                do {
                    _ = try await scheduler.add(
                        contentsOf: chunk.map { BatchRequest(appID: $0.device.appID, spec: $0.spec) })
                } catch let error as BatchAddError {
                    // Refused by the engine (no date matches): that request fails, the one before it with the same
                    // device and identifier takes its place, and the chunk goes again.
                    var refused = Set<Int>()
                    for refusal in error.refusals {
                        let item = chunk[refusal.index]
                        refused.insert(refusal.index)
                        failures[item.index] = refusal.error
                        if var earlier = waiting[item.key], let previous = earlier.popLast() {
                            waiting[item.key] = earlier
                            chunk.append(previous)
                        }
                    }
                    chunk = chunk.enumerated().filter { !refused.contains($0.offset) }.map(\.element)
                    continue
                } catch {
                    for item in chunk { finish(item, error) }
                    break
                }
                do {
                    try await store.setFloating(chunk.map { ($0.device.id, $0.spec.identifier, $0.floating) })
                    for item in chunk { finish(item, nil) }
                } catch {
                    for item in chunk { finish(item, error) }
                }
                break
            }
        }
        return failures
    }

    /// A request of a batch, checked: its position, its device and the spec to store.
    private struct BatchItem {
        var index: Int
        var device: Device
        var spec: RequestSpec
        var floating: Bool
        var key: String { device.id + "\u{0}" + spec.identifier }
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
    static func active(_ device: Device?, id: String) throws -> Device {
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
