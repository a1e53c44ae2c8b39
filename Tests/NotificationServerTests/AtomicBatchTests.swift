import Foundation
import NotificationEngine
import NotificationModel
import NotificationServer
import Logging
import OpenUserNotificationsTesting
import PostgresNIO
import PushTestSupport
import Testing

@testable import NotificationStorePostgres

/// `DeviceScheduler.scheduleAll(_:)`: an all-or-nothing batch, against a real PostgreSQL database: one refused
/// request or a store failure leaves nothing stored; a good batch stores what the item-by-item batch stores.
@Suite("Devices: all-or-nothing batches", .timeLimit(.minutes(5)))
struct AtomicBatchTests {
    /// What a device has pending, by identifier: spec and next fire date.
    static func pending(_ devices: DeviceScheduler, _ id: String) async throws -> [String: PendingRequest] {
        Dictionary(uniqueKeysWithValues: try await devices.pendingRequests(forDevice: id).map { ($0.identifier, $0) })
    }

    /// Everything a batch could have changed: each device's pending requests and floating marks.
    static func snapshot(_ store: PostgresNotificationStore, _ devices: DeviceScheduler, _ ids: [String]) async throws
        -> [String: [String]]
    {
        var snapshot: [String: [String]] = [:]
        for id in ids {
            let pending = try await devices.pendingRequests(forDevice: id).sorted { $0.identifier < $1.identifier }
            snapshot[id] =
                pending.map { "\($0.identifier) \($0.spec.content.title) \($0.nextFireDate.map { "\($0)" } ?? "-")" }
                + (try await store.floatingRequests(deviceID: id)).map { "floating \($0.identifier)" }.sorted()
        }
        return snapshot
    }

    @Test("one refused request stores nothing: every refusal is named, with one at a time's error, and nothing changed")
    func refusedStoresNothing() async throws {
        try await withDeviceScheduler { store, devices in
            for id in ["a", "b", "gone", "denied"] {
                try await devices.register(registration(id, zone: "Europe/Paris"))
            }
            try await store.deactivateDevice(id: "gone", at: devices.scheduler.clock.now)
            try await devices.scheduler.setAuthorization(
                appID: Device.appID(forDevice: "denied"), status: .denied, options: [])
            // Pending before: a floating daily request and a time interval the batch would replace.
            try await devices.schedule(spec("keep", daily(7, 0)), forDevice: "a")
            try await devices.schedule(spec("soon", .timeInterval(600, repeats: false)), forDevice: "b")
            let before = try await Self.snapshot(store, devices, ["a", "b", "denied"])
            var never = CalendarComponents()
            (never.weekday, never.weekdayOrdinal) = (2, 6)  // no month has a sixth Monday
            let batch = [
                DeviceRequest(deviceID: "a", spec: spec("keep", .timeInterval(60, repeats: false))),
                DeviceRequest(deviceID: "b", spec: spec("soon", daily(9, 0))),
                DeviceRequest(deviceID: "b", spec: spec("new", .timeInterval(120, repeats: false))),
                DeviceRequest(deviceID: "nobody", spec: spec("x", daily(9, 0))),
                DeviceRequest(deviceID: "gone", spec: spec("x", daily(9, 0))),
                DeviceRequest(deviceID: "a", spec: spec("too-often", .timeInterval(30, repeats: true))),
                DeviceRequest(deviceID: "b", spec: spec("never", .calendar(never, repeats: false, matching: .apple))),
                DeviceRequest(deviceID: "denied", spec: spec("x", .timeInterval(60, repeats: false))),
            ]
            let error = try await #require(throws: DeviceBatchError.self) { try await devices.scheduleAll(batch) }
            #expect(error.count == batch.count)
            #expect(error.refusals.keys.sorted() == [3, 4, 5, 6, 7])
            #expect((error.refusals[3] as? DeviceError)?.code == .unknownDevice)
            #expect((error.refusals[4] as? DeviceError)?.code == .inactiveDevice)
            #expect((error.refusals[5] as? EngineError)?.code == .invalidTrigger)
            #expect((error.refusals[6] as? EngineError)?.code == .invalidNoDate)
            #expect((error.refusals[7] as? EngineError)?.code == .notificationsNotAllowed)
            #expect("\(error)".hasPrefix("5 of the batch's 8 requests refused, nothing stored: request 3: "))
            #expect(try await Self.snapshot(store, devices, ["a", "b", "denied"]) == before)
            // The same errors as one at a time, message for message (this stores the good ones: last).
            for (index, refusal) in error.refusals {
                do {
                    try await devices.schedule(batch[index].spec, forDevice: batch[index].deviceID)
                    Issue.record("request \(index) was accepted one at a time")
                } catch {
                    #expect("\(error)" == "\(refusal)", "request \(index)")
                }
            }
        }
    }

    @Test("a good batch over devices in 8 zones stores all of it, request for request as the item-by-item batch does")
    func goodBatchStoresAll() async throws {
        try await withDeviceScheduler { store, devices in
            let count = 16
            for i in 0..<count {
                for side in ["items", "atomic"] {
                    let zone = DeviceBatchTests.zones[i % DeviceBatchTests.zones.count]
                    try await devices.register(registration("\(side)-\(i)", zone: zone))
                    try await devices.schedule(spec("old", daily(6, 30)), forDevice: "\(side)-\(i)")
                    try await devices.schedule(
                        spec("kept", .timeInterval(7_200, repeats: false)), forDevice: "\(side)-\(i)")
                }
            }
            // Interleaved devices; "nine" twice per device (the last wins), "old" replaced.
            func batch(_ side: String) -> [DeviceRequest] {
                DeviceBatchTests.requests(0).indices.flatMap { position in
                    (0..<count).map { i in
                        DeviceRequest(deviceID: "\(side)-\(i)", spec: DeviceBatchTests.requests(i)[position])
                    }
                }
            }
            let failures = await devices.schedule(batch("items"))
            #expect(failures.isEmpty, "\(failures)")
            let result = try await devices.scheduleAll(batch("atomic"))
            #expect(result.added == batch("atomic").count)
            #expect(result.discarded.isEmpty)
            for i in 0..<count {
                let items = try await Self.pending(devices, "items-\(i)")
                let atomic = try await Self.pending(devices, "atomic-\(i)")
                #expect(
                    atomic.keys.sorted() == ["gap", "kept", "nine", "old", "soon", "tokyo", "weekly"], "device \(i)")
                #expect(atomic.keys.sorted() == items.keys.sorted(), "device \(i)")
                for (identifier, request) in items {
                    #expect(atomic[identifier]?.spec == request.spec, "device \(i) \(identifier)")
                    #expect(atomic[identifier]?.nextFireDate == request.nextFireDate, "device \(i) \(identifier)")
                }
                #expect(
                    try await store.floatingRequests(deviceID: "atomic-\(i)").map(\.identifier).sorted()
                        == ["gap", "nine", "weekly"], "device \(i)")
            }
            // Paris's 9:00 is 08:00 UTC, passed at 12:00 UTC: tomorrow; New York's is 14:00 UTC today.
            #expect(
                try await Self.pending(devices, "atomic-0")["nine"]?.nextFireDate == instant("2026-11-27T08:00:00Z"))
            #expect(
                try await Self.pending(devices, "atomic-1")["nine"]?.nextFireDate == instant("2026-11-26T14:00:00Z"))
            // A zone change after the batch re-pins its floating requests (the marks were written with it).
            try await devices.register(registration("atomic-0", zone: "America/New_York"))
            #expect(
                try await Self.pending(devices, "atomic-0")["nine"]?.nextFireDate == instant("2026-11-26T14:00:00Z"))
        }
    }

    @Test("the pending cap per device holds inside the batch: the soonest 64 stay, older ones and the batch's own go")
    func pendingCap() async throws {
        try await withDeviceScheduler { _, devices in
            try await devices.register(registration("full", zone: "UTC"))
            try await devices.register(registration("light", zone: "UTC"))
            // 10 pending before, firing in 1 to 10 hours.
            for hour in 1...10 {
                try await devices.schedule(
                    spec("before-\(hour)", .timeInterval(Double(hour) * 3_600, repeats: false)), forDevice: "full")
            }
            // 60 more, firing every minute from 30 minutes on: 70 in all, the 6 latest (before-5 to before-10) go.
            let batch =
                (0..<60).map { minute in
                    DeviceRequest(
                        deviceID: "full",
                        spec: spec("batch-\(minute)", .timeInterval(Double(1_800 + 60 * minute), repeats: false)))
                } + [DeviceRequest(deviceID: "light", spec: spec("one", .timeInterval(60, repeats: false)))]
            let result = try await devices.scheduleAll(batch)
            #expect(result.added == 61)
            #expect(result.discarded.map(\.identifier).sorted() == (5...10).map { "before-\($0)" }.sorted())
            let full = try await Self.pending(devices, "full")
            #expect(full.count == 64)
            #expect(Set(full.keys) == Set((0..<60).map { "batch-\($0)" } + (1...4).map { "before-\($0)" }))
            #expect(try await Self.pending(devices, "light").keys.sorted() == ["one"])
            // The discarded ones are in the history, as the engine records them.
            let history = try await devices.scheduler.history(appID: Device.appID(forDevice: "full"), limit: 20)
            #expect(history.filter { $0.outcome == .discarded }.count == 6)
        }
    }

    @Test("a store failure in the middle of the transaction (after the rows, at the marks) leaves nothing stored")
    func storeFailureStoresNothing() async throws {
        try await withDeviceScheduler { store, devices in
            for id in ["a", "b"] { try await devices.register(registration(id, zone: "Europe/Paris")) }
            try await devices.schedule(spec("keep", daily(7, 0)), forDevice: "a")
            let before = try await Self.snapshot(store, devices, ["a", "b"])
            // The database refuses a floating mark for the identifier "boom": the statement after the rows fails.
            try await store.client.query(
                """
                CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.identifier = 'boom' THEN RAISE EXCEPTION 'boom refused by the test'; END IF; RETURN NEW; END $$
                """)
            try await store.client.query(
                """
                CREATE TRIGGER refuse_boom BEFORE INSERT ON device_floating FOR EACH ROW EXECUTE FUNCTION refuse_boom()
                """)
            let batch = [
                DeviceRequest(deviceID: "a", spec: spec("keep", .timeInterval(60, repeats: false))),
                DeviceRequest(deviceID: "b", spec: spec("fine", daily(8, 0))),
                DeviceRequest(deviceID: "b", spec: spec("boom", daily(9, 0))),
            ]
            await #expect(throws: (any Error).self) { try await devices.scheduleAll(batch) }
            #expect(try await Self.snapshot(store, devices, ["a", "b"]) == before)
            // The item-by-item batch, by contrast, stores the rows and reports the marks' failure for the whole chunk.
            let failures = await devices.schedule(batch)
            #expect(failures.keys.sorted() == [0, 1, 2])
            #expect(try await Self.pending(devices, "b").keys.sorted() == ["boom", "fine"])
            // Without the trigger the same batch goes through.
            try await store.client.query("DROP TRIGGER refuse_boom ON device_floating")
            try await devices.scheduleAll(batch)
            #expect(try await store.floatingRequests(deviceID: "b").map(\.identifier).sorted() == ["boom", "fine"])
            #expect(try await Self.pending(devices, "a")["keep"]?.nextFireDate == instant("2026-11-26T12:01:00Z"))
        }
    }

    @Test(
        "a device removed while the batch waits for its row (FOR SHARE) is seen gone inside the transaction: nothing stored"
    )
    func deviceRemovedUnderTheBatch() async throws {
        try await withDeviceScheduler { store, devices in
            for id in ["a", "b"] { try await devices.register(registration(id, zone: "Europe/Paris")) }
            try await store.client.withConnection { connection in
                try await Self.removeUnderBatch(store, devices, connection)
            }
            #expect(try await store.device(id: "a") == nil)
            #expect(try await devices.pendingRequests(forDevice: "b").isEmpty)
        }
    }

    /// Locks device `a`'s row on `connection`, starts a batch for `a` and `b`, waits until the batch waits for the
    /// row, deletes the device and commits: the batch must then find `a` gone and store nothing.
    static func removeUnderBatch(
        _ store: PostgresNotificationStore, _ devices: DeviceScheduler, _ connection: PostgresConnection
    ) async throws {
        let logger = Logger(label: "test")
        try await connection.query("BEGIN", logger: logger)
        try await connection.query("SELECT id FROM device WHERE id = 'a' FOR UPDATE", logger: logger)
        let batch = Task {
            try await devices.scheduleAll([
                DeviceRequest(deviceID: "a", spec: spec("x", .timeInterval(600, repeats: false))),
                DeviceRequest(deviceID: "b", spec: spec("y", .timeInterval(600, repeats: false))),
            ])
        }
        let waiting = try await eventually(within: 60) {
            var count = 0
            for try await waiters in try await store.client.query(
                """
                SELECT count(*)::int8 FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                """
            ).decode(Int.self) {
                count = waiters
            }
            return count >= 1
        }
        #expect(waiting, "the batch never waited for the device's row")
        try await connection.query("DELETE FROM device WHERE id = 'a'", logger: logger)
        try await connection.query("COMMIT", logger: logger)
        do {
            _ = try await batch.value
            Issue.record("the batch was stored for a device removed before it committed")
        } catch let error as DeviceBatchError {
            #expect(error.refusals.keys.sorted() == [0])
            #expect((error.refusals[0] as? DeviceError)?.code == .unknownDevice)
        }
    }

    @Test("an empty batch stores nothing and answers 0")
    func empty() async throws {
        try await withDeviceScheduler { _, devices in
            let result = try await devices.scheduleAll([])
            #expect(result.added == 0 && result.discarded.isEmpty)
        }
    }
}
