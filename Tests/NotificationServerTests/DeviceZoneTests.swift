import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import Testing

@Suite("Devices: scheduling in each device's zone", .timeLimit(.minutes(5)))
struct DeviceZoneTests {
    /// Schedules daily 01:30 and 02:30 floating triggers for a device in Paris and one in New York at `start`, then
    /// steps a manual clock from fire to fire until `end`.
    /// - Returns: Every fire as (device, request, due instant), in order.
    func dailyFires(from start: Date, to end: Date) async throws -> [Fire] {
        let configuration = try await freshDatabase()
        return try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            // The worker's own zone is neither device's: floating components must follow the device's.
            let clock = ManualNotificationClock(now: start, timeZone: TimeZone(identifier: "Asia/Tokyo")!)
            let presenter = RecordingPresenter()
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter)
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            try await devices.register(registration("paris", zone: "Europe/Paris"))
            try await devices.register(registration("newyork", zone: "America/New_York"))
            for device in ["paris", "newyork"] {
                try await devices.schedule(spec("h0130", daily(1, 30)), forDevice: device)
                try await devices.schedule(spec("h0230", daily(2, 30)), forDevice: device)
            }
            while let next = try await store.nextWakeDate(), next <= end {
                clock.set(to: next)
                await scheduler.deliverDue()
            }
            return presenter.presentations.map {
                Fire(device: Device.deviceID(forAppID: $0.appID) ?? $0.appID, request: $0.identifier, due: $0.dueDate)
            }
        }
    }

    struct Fire: Hashable, CustomStringConvertible {
        var device: String
        var request: String
        var due: Date
        var description: String { "\(device)/\(request)@\(due.formatted(.iso8601))" }
    }

    /// The local calendar days of a device's fires of one request, in its zone.
    func localDays(_ fires: [Fire], device: String, request: String, zone: String) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return fires.filter { $0.device == device && $0.request == request }.map {
            let day = calendar.dateComponents([.year, .month, .day], from: $0.due)
            return "\(day.year!)-\(day.month!)-\(day.day!)"
        }
    }

    @Test("spring forward: 02:30 in the gap fires at 03:00 local, in Paris and in New York, no day skipped")
    func springGaps() async throws {
        // New York springs forward on 8 March 2026, Paris on 29 March.
        let fires = try await dailyFires(from: instant("2026-03-07T12:00:00Z"), to: instant("2026-03-30T12:00:00Z"))
        let set = Set(fires)
        // New York, 8 March: 02:30 does not exist, fires at 03:00 EDT (07:00 UTC); 01:30 is still EST (06:30 UTC).
        #expect(set.contains(Fire(device: "newyork", request: "h0230", due: instant("2026-03-08T07:00:00Z"))))
        #expect(set.contains(Fire(device: "newyork", request: "h0130", due: instant("2026-03-08T06:30:00Z"))))
        // The day before and after, at 02:30 local in EST and EDT.
        #expect(set.contains(Fire(device: "newyork", request: "h0230", due: instant("2026-03-09T06:30:00Z"))))
        // Paris, 29 March: 02:30 fires at 03:00 CEST (01:00 UTC); 01:30 CET is 00:30 UTC.
        #expect(set.contains(Fire(device: "paris", request: "h0230", due: instant("2026-03-29T01:00:00Z"))))
        #expect(set.contains(Fire(device: "paris", request: "h0130", due: instant("2026-03-29T00:30:00Z"))))
        // Paris on New York's change day is untouched: 02:30 CET is 01:30 UTC.
        #expect(set.contains(Fire(device: "paris", request: "h0230", due: instant("2026-03-08T01:30:00Z"))))
        // Once per local day, every day from 8 to 30 March, for each device and request.
        for (device, zone) in [("paris", "Europe/Paris"), ("newyork", "America/New_York")] {
            for request in ["h0130", "h0230"] {
                let days = localDays(fires, device: device, request: request, zone: zone)
                #expect(days == (8...30).map { "2026-3-\($0)" }, "\(device) \(request)")
            }
        }
        #expect(fires.count == set.count)
    }

    @Test("fall back: a time in the overlap fires once, at its first occurrence, in Paris and in New York")
    func fallOverlaps() async throws {
        // Paris falls back on 25 October 2026 (03:00 CEST -> 02:00 CET), New York on 1 November (02:00 EDT -> 01:00
        // EST).
        let fires = try await dailyFires(from: instant("2026-10-24T12:00:00Z"), to: instant("2026-11-02T12:00:00Z"))
        let paris0230 = fires.filter { $0.device == "paris" && $0.request == "h0230" }.map(\.due)
        // 02:30 happens twice on the 25th in Paris (00:30 and 01:30 UTC): once, at 00:30 UTC.
        #expect(paris0230.contains(instant("2026-10-25T00:30:00Z")))
        #expect(!paris0230.contains(instant("2026-10-25T01:30:00Z")))
        let newYork0130 = fires.filter { $0.device == "newyork" && $0.request == "h0130" }.map(\.due)
        // 01:30 happens twice on 1 November in New York (05:30 and 06:30 UTC): once, at 05:30 UTC.
        #expect(newYork0130.contains(instant("2026-11-01T05:30:00Z")))
        #expect(!newYork0130.contains(instant("2026-11-01T06:30:00Z")))
        for (device, zone) in [("paris", "Europe/Paris"), ("newyork", "America/New_York")] {
            for request in ["h0130", "h0230"] {
                let days = localDays(fires, device: device, request: request, zone: zone)
                #expect(Set(days).count == days.count, "\(device) \(request) fired twice on a day: \(days)")
                // 25 October to 2 November, local days.
                #expect(days.count == 9, "\(device) \(request): \(days)")
            }
        }
    }

    @Test("a device's zone change re-plans its floating requests in the new zone; pinned zones stay")
    func zoneChange() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            // Monday 5 January 2026, 07:00 UTC.
            let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
            let presenter = RecordingPresenter()
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: presenter)
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            try await devices.register(registration("traveller", zone: "Europe/Paris"))
            try await devices.schedule(spec("nine", daily(9, 0)), forDevice: "traveller")
            var noonUTC = CalendarComponents()
            (noonUTC.hour, noonUTC.timeZoneIdentifier) = (12, "UTC")
            try await devices.schedule(
                spec("noon", .calendar(noonUTC, repeats: true, matching: .apple)), forDevice: "traveller")
            var pending = try await devices.pendingRequests(forDevice: "traveller")
            #expect(pending.first { $0.identifier == "nine" }?.nextFireDate == instant("2026-01-05T08:00:00Z"))

            try await devices.register(registration("traveller", zone: "America/New_York"))
            pending = try await devices.pendingRequests(forDevice: "traveller")
            let nine = try #require(pending.first { $0.identifier == "nine" })
            #expect(nine.nextFireDate == instant("2026-01-05T14:00:00Z"))
            guard case .calendar(let components, true, _)? = nine.spec.trigger else {
                Issue.record("not a repeating calendar trigger: \(String(describing: nine.spec.trigger))")
                return
            }
            #expect(components.timeZoneIdentifier == "America/New_York" && components.hour == 9)
            #expect(pending.first { $0.identifier == "noon" }?.nextFireDate == instant("2026-01-05T12:00:00Z"))

            // 09:00 in Paris passes without a fire; 09:00 in New York fires.
            clock.set(to: instant("2026-01-05T08:00:00Z"))
            await scheduler.deliverDue()
            #expect(presenter.presentations.isEmpty)
            clock.set(to: instant("2026-01-05T14:00:00Z"))
            await scheduler.deliverDue()
            #expect(presenter.presentations.map(\.identifier) == ["noon", "nine"])

            // Scheduling "nine" again with a zone of its own: no longer floating, a later zone change leaves it.
            var nineTokyo = CalendarComponents()
            (nineTokyo.hour, nineTokyo.timeZoneIdentifier) = (9, "Asia/Tokyo")
            try await devices.schedule(
                spec("nine", .calendar(nineTokyo, repeats: true, matching: .apple)), forDevice: "traveller")
            try await devices.register(registration("traveller", zone: "Europe/London"))
            let tokyo = try await devices.pendingRequests(forDevice: "traveller").first { $0.identifier == "nine" }
            #expect(tokyo?.nextFireDate == instant("2026-01-06T00:00:00Z"))
        }
    }

    @Test("replace, cancel and the pending cap apply per device")
    func perDeviceRules() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let clock = ManualNotificationClock(now: instant("2026-01-05T07:00:00Z"))
            let scheduler = NotificationScheduler(
                store: store, clock: clock, presenter: RecordingPresenter(),
                configuration: EngineConfiguration(pendingCap: 3))
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            try await devices.register(registration("a", zone: "Europe/Paris"))
            try await devices.register(registration("b", zone: "Europe/Paris"))
            let failures = await devices.schedule(spec("same", .timeInterval(600, repeats: false)), forDevices: ["a", "b", "c"])
            #expect(failures.keys.sorted() == ["c"])
            #expect((failures["c"] as? DeviceError)?.code == .unknownDevice)
            // Replacing on "a" leaves "b"'s.
            try await devices.schedule(spec("same", .timeInterval(900, repeats: false)), forDevice: "a")
            #expect(
                try await devices.pendingRequests(forDevice: "a").map(\.nextFireDate)
                    == [instant("2026-01-05T07:15:00Z")])
            #expect(
                try await devices.pendingRequests(forDevice: "b").map(\.nextFireDate)
                    == [instant("2026-01-05T07:10:00Z")])
            // The cap of 3 counts "a"'s requests only: the soonest 3 of "a"'s stay, "b"'s is untouched.
            for id in ["x", "y", "z"] {
                try await devices.schedule(spec(id, .timeInterval(60, repeats: false)), forDevice: "a")
            }
            #expect(try await devices.pendingRequests(forDevice: "a").map(\.identifier).sorted() == ["x", "y", "z"])
            #expect(try await devices.pendingRequests(forDevice: "b").map(\.identifier) == ["same"])
            // Cancelling a repeating request on "b" stops it there only.
            try await devices.schedule(spec("rep", .timeInterval(60, repeats: true)), forDevice: "b")
            try await devices.cancel(identifiers: ["rep"], forDevice: "b")
            #expect(try await devices.pendingRequests(forDevice: "b").map(\.identifier) == ["same"])
            let error = await #expect(throws: DeviceError.self) {
                try await devices.schedule(spec("late", nil), forDevice: "nobody")
            }
            #expect(error?.code == .unknownDevice)
            let badTrigger = await #expect(throws: EngineError.self) {
                try await devices.schedule(spec("bad", .timeInterval(-1, repeats: false)), forDevice: "a")
            }
            #expect(badTrigger?.code == .invalidTrigger)
        }
    }
}
