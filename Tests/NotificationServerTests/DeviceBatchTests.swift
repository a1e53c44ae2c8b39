import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import Testing

/// `DeviceScheduler.schedule(_:)`, many requests for many devices at once, held to what scheduling them one at a time
/// stores.
@Suite("Devices: scheduling in batches", .timeLimit(.minutes(5)))
struct DeviceBatchTests {
    /// Zones with whole-hour, half-hour, 45-minute and southern-hemisphere offsets.
    static let zones = [
        "Europe/Paris", "America/New_York", "Asia/Tokyo", "Asia/Kathmandu", "Australia/Lord_Howe", "America/St_Johns",
        "Pacific/Chatham", "UTC",
    ]

    /// The requests scheduled for device `i`: floating daily and weekly calendar triggers, a pinned zone, a time
    /// interval, and replacements (`nine` first at 8:00, then at 9:00; `old` scheduled before, replaced here).
    static func requests(_ i: Int) -> [RequestSpec] {
        var weekly = CalendarComponents()
        (weekly.weekday, weekly.hour, weekly.minute) = (2 + i % 5, 7, 15 * (i % 4))
        var tokyo = CalendarComponents()
        (tokyo.hour, tokyo.timeZoneIdentifier) = (18, "Asia/Tokyo")
        var lastSunday = CalendarComponents()
        (lastSunday.month, lastSunday.day, lastSunday.hour) = (3, 29, 2)  // in a gap in Paris in 2026
        return [
            spec("nine", daily(8, 0)),
            spec("soon", .timeInterval(600 + Double(i), repeats: false)),
            spec("weekly", .calendar(weekly, repeats: true, matching: .apple)),
            spec("tokyo", .calendar(tokyo, repeats: true, matching: .apple)),
            spec("nine", daily(9, 0)),
            spec("gap", .calendar(lastSunday, repeats: false, matching: .apple)),
            spec("old", .timeInterval(3_600, repeats: true)),
        ]
    }

    /// A device's pending requests by identifier: spec and next fire date.
    static func pending(_ devices: DeviceScheduler, _ id: String) async throws -> [String: PendingRequest] {
        Dictionary(uniqueKeysWithValues: try await devices.pendingRequests(forDevice: id).map { ($0.identifier, $0) })
    }

    @Test("a batch over devices in 8 zones stores, request for request, what one at a time stores")
    func sameAsOneAtATime() async throws {
        try await withDeviceScheduler { store, devices in
            let count = 24
            for i in 0..<count {
                for side in ["one", "batch"] {
                    try await devices.register(registration("\(side)-\(i)", zone: Self.zones[i % Self.zones.count]))
                    // Pending before: replaced by the batch (its own trigger there) or left alone.
                    try await devices.schedule(spec("old", daily(6, 30)), forDevice: "\(side)-\(i)")
                    try await devices.schedule(
                        spec("kept", .timeInterval(7_200, repeats: false)), forDevice: "\(side)-\(i)")
                }
            }
            for i in 0..<count {
                for request in Self.requests(i) { try await devices.schedule(request, forDevice: "one-\(i)") }
            }
            // The batch interleaves the devices, as a backend's list would.
            var batch: [DeviceRequest] = []
            for (position, request) in Self.requests(0).indices.enumerated() {
                _ = request
                for i in 0..<count {
                    batch.append(DeviceRequest(deviceID: "batch-\(i)", spec: Self.requests(i)[position]))
                }
            }
            let failures = await devices.schedule(batch)
            #expect(failures.isEmpty, "\(failures)")

            for i in 0..<count {
                let one = try await Self.pending(devices, "one-\(i)")
                let batched = try await Self.pending(devices, "batch-\(i)")
                #expect(one.keys.sorted() == ["gap", "kept", "nine", "old", "soon", "tokyo", "weekly"])
                #expect(batched.keys.sorted() == one.keys.sorted(), "device \(i)")
                for (identifier, request) in one {
                    #expect(batched[identifier]?.spec == request.spec, "device \(i) \(identifier)")
                    #expect(batched[identifier]?.nextFireDate == request.nextFireDate, "device \(i) \(identifier)")
                }
                // The floating marks: the same requests, pinned to the device's zone.
                let zone = Self.zones[i % Self.zones.count]
                let floating = try await store.floatingRequests(deviceID: "batch-\(i)")
                #expect(floating.map(\.identifier).sorted() == ["gap", "nine", "weekly"], "device \(i)")
                #expect(
                    try await store.floatingRequests(deviceID: "one-\(i)").map(\.identifier).sorted()
                        == floating.map(\.identifier).sorted())
                guard case .calendar(let nine, true, _)? = batched["nine"]?.spec.trigger else {
                    Issue.record("nine is not a repeating calendar trigger on device \(i)")
                    continue
                }
                #expect(nine.timeZoneIdentifier == zone && nine.hour == 9)
            }
            // Paris's 9:00 is 08:00 UTC, passed at 12:00 UTC: tomorrow; New York's is 14:00 UTC today.
            #expect(try await Self.pending(devices, "batch-0")["nine"]?.nextFireDate == instant("2026-11-27T08:00:00Z"))
            #expect(try await Self.pending(devices, "batch-1")["nine"]?.nextFireDate == instant("2026-11-26T14:00:00Z"))
        }
    }

    @Test(
        "unknown and inactive devices and refused triggers fail one by one, with one at a time's errors; the rest is stored"
    )
    func failuresPerItem() async throws {
        try await withDeviceScheduler { store, devices in
            for id in ["a", "b", "gone"] { try await devices.register(registration(id, zone: "Europe/Paris")) }
            try await store.deactivateDevice(id: "gone", at: devices.scheduler.clock.now)
            var never = CalendarComponents()
            (never.weekday, never.weekdayOrdinal) = (2, 6)  // no month has a sixth Monday
            var past = CalendarComponents()
            (past.year, past.month, past.day) = (2020, 1, 1)
            var pastUTC = past
            pastUTC.timeZoneIdentifier = "UTC"
            let batch = [
                DeviceRequest(deviceID: "a", spec: spec("ok-a", daily(9, 0))),
                DeviceRequest(deviceID: "nobody", spec: spec("x", daily(9, 0))),
                DeviceRequest(deviceID: "gone", spec: spec("x", daily(9, 0))),
                DeviceRequest(deviceID: "b", spec: spec("too-often", .timeInterval(30, repeats: true))),
                DeviceRequest(deviceID: "b", spec: spec("never", .calendar(never, repeats: false, matching: .apple))),
                DeviceRequest(deviceID: "b", spec: spec("ok-b", .timeInterval(60, repeats: false))),
                // A refused request does not replace: "ok-a" stays as first given.
                DeviceRequest(deviceID: "a", spec: spec("ok-a", .timeInterval(-5, repeats: false))),
                // Refused by the engine itself (no date after now matches): the one before it with the same
                // identifier is stored, and neither mark changes.
                DeviceRequest(deviceID: "b", spec: spec("dup", .timeInterval(120, repeats: false))),
                DeviceRequest(deviceID: "b", spec: spec("dup", .calendar(past, repeats: false, matching: .apple))),
                DeviceRequest(deviceID: "a", spec: spec("ok-a", .calendar(pastUTC, repeats: false, matching: .apple))),
            ]
            let failures = await devices.schedule(batch)
            #expect(failures.keys.sorted() == [1, 2, 3, 4, 6, 8, 9])
            #expect((failures[8] as? EngineError)?.code == .invalidNoDate)
            #expect((failures[9] as? EngineError)?.code == .invalidNoDate)
            #expect((failures[1] as? DeviceError)?.code == .unknownDevice)
            #expect((failures[2] as? DeviceError)?.code == .inactiveDevice)
            #expect((failures[3] as? EngineError)?.code == .invalidTrigger)
            #expect((failures[4] as? EngineError)?.code == .invalidNoDate)
            #expect((failures[6] as? EngineError)?.code == .invalidTrigger)
            // The same errors as one at a time, message for message.
            for (index, failure) in failures {
                do {
                    try await devices.schedule(batch[index].spec, forDevice: batch[index].deviceID)
                    Issue.record("request \(index) was accepted one at a time")
                } catch {
                    #expect("\(error)" == "\(failure)", "request \(index)")
                }
            }
            let a = try await Self.pending(devices, "a")
            #expect(a.keys.sorted() == ["ok-a"])
            #expect(a["ok-a"]?.nextFireDate == instant("2026-11-27T08:00:00Z"))
            let b = try await Self.pending(devices, "b")
            #expect(b.keys.sorted() == ["dup", "ok-b"])
            #expect(b["dup"]?.nextFireDate == instant("2026-11-26T12:02:00Z"))
            #expect(try await store.floatingRequests(deviceID: "a").map(\.identifier) == ["ok-a"])
            #expect(try await store.floatingRequests(deviceID: "b").isEmpty)
            // One request for many devices goes the same way: the failures by device.
            let byDevice = await devices.schedule(spec("all", daily(10, 0)), forDevices: ["a", "nobody", "b", "gone"])
            #expect(byDevice.keys.sorted() == ["gone", "nobody"])
            #expect(try await Self.pending(devices, "b")["all"]?.nextFireDate == instant("2026-11-27T09:00:00Z"))
        }
    }

    @Test("a device whose app identity is denied notifications fails alone, as one at a time")
    func denied() async throws {
        try await withDeviceScheduler { _, devices in
            for id in ["a", "b"] { try await devices.register(registration(id, zone: "Europe/Paris")) }
            try await devices.scheduler.setAuthorization(
                appID: Device.appID(forDevice: "b"), status: .denied, options: [])
            let batch = ["a", "b"].map {
                DeviceRequest(deviceID: $0, spec: spec("r", .timeInterval(600, repeats: false)))
            }
            let failures = await devices.schedule(batch)
            #expect(failures.keys.sorted() == [1])
            #expect((failures[1] as? EngineError)?.code == .notificationsNotAllowed)
            let error = await #expect(throws: EngineError.self) {
                try await devices.schedule(batch[1].spec, forDevice: "b")
            }
            #expect(error?.message == (failures[1] as? EngineError)?.message)
            #expect(try await devices.pendingRequests(forDevice: "a").map(\.identifier) == ["r"])
            #expect(try await devices.pendingRequests(forDevice: "b").isEmpty)
        }
    }

    @Test("a zone change after a batch re-pins the batch's floating requests; pinned ones and time intervals stay")
    func zoneChangeAfterBatch() async throws {
        try await withDeviceScheduler { store, devices in
            try await devices.register(registration("traveller", zone: "Europe/Paris"))
            try await devices.register(registration("home", zone: "Europe/Paris"))
            let failures = await devices.schedule(
                ["traveller", "home"].flatMap { id in Self.requests(0).map { DeviceRequest(deviceID: id, spec: $0) } })
            #expect(failures.isEmpty, "\(failures)")
            let before = try await Self.pending(devices, "traveller")
            #expect(before["nine"]?.nextFireDate == instant("2026-11-27T08:00:00Z"))

            try await devices.register(registration("traveller", zone: "America/New_York"))
            let after = try await Self.pending(devices, "traveller")
            // 9:00 in New York is 14:00 UTC, still ahead today.
            #expect(after["nine"]?.nextFireDate == instant("2026-11-26T14:00:00Z"))
            guard case .calendar(let nine, true, _)? = after["nine"]?.spec.trigger else {
                Issue.record("nine is not a repeating calendar trigger")
                return
            }
            #expect(nine.timeZoneIdentifier == "America/New_York")
            guard case .calendar(let weekly, true, _)? = after["weekly"]?.spec.trigger else {
                Issue.record("weekly is not a repeating calendar trigger")
                return
            }
            #expect(weekly.timeZoneIdentifier == "America/New_York")
            #expect(after["weekly"]?.nextFireDate != before["weekly"]?.nextFireDate)
            // Pinned by the request itself, and time intervals: as they were.
            for identifier in ["tokyo", "soon", "old"] {
                #expect(after[identifier]?.spec == before[identifier]?.spec, "\(identifier)")
                #expect(after[identifier]?.nextFireDate == before[identifier]?.nextFireDate, "\(identifier)")
            }
            // The other device keeps Paris.
            #expect(try await Self.pending(devices, "home")["nine"]?.nextFireDate == instant("2026-11-27T08:00:00Z"))
            #expect(try await store.floatingRequests(deviceID: "home").count == 3)
        }
    }

    @Test("the pending cap holds per device, the soonest requests staying, as one at a time; chunks of 1,000")
    func cap() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let clock = ManualNotificationClock(now: instant("2026-11-26T12:00:00Z"))
            let scheduler = NotificationScheduler(
                store: store, clock: clock, presenter: NoPresenter(), configuration: EngineConfiguration(pendingCap: 5))
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            for id in ["one", "batch", "other"] { try await devices.register(registration(id, zone: "Asia/Tokyo")) }
            // 12 requests each, latest first, so the cap keeps the last 5 given; 1,200 more for "other" make the
            // batch span two chunks.
            let specs = (0..<12).map { spec("r\($0)", .timeInterval(Double(2_000 - $0 * 60), repeats: false)) }
            for request in specs { try await devices.schedule(request, forDevice: "one") }
            var batch = specs.map { DeviceRequest(deviceID: "batch", spec: $0) }
            batch += (0..<1_200).map {
                DeviceRequest(deviceID: "other", spec: spec("o\($0)", .timeInterval(60 + Double($0), repeats: false)))
            }
            #expect(batch.count > DeviceScheduler.batchChunkSize)
            let failures = await devices.schedule(batch)
            #expect(failures.isEmpty)
            let one = try await Self.pending(devices, "one")
            let batched = try await Self.pending(devices, "batch")
            #expect(one.keys.sorted() == ["r10", "r11", "r7", "r8", "r9"])
            #expect(batched.keys.sorted() == one.keys.sorted())
            for (identifier, request) in one { #expect(batched[identifier]?.nextFireDate == request.nextFireDate) }
            #expect(try await Self.pending(devices, "other").keys.sorted() == ["o0", "o1", "o2", "o3", "o4"])
        }
    }
}
