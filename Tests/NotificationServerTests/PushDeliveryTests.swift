import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationAPNsProvider
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PostgresNIO
import PushTestSupport
import Synchronization
import Testing

/// The push service's pushes (issue 20): fan-out in the workers, send times, cancelling, statistics, and the HTTP
/// API's answers, on a fresh database each.
@Suite("Push service: pushes, fan-out and statistics", .timeLimit(.minutes(5)))
struct PushDeliveryTests {
    static let start = instant("2026-11-26T12:00:00Z")

    static func content(_ title: String) -> NotificationPayload {
        var content = NotificationPayload()
        content.title = title
        content.body = "body of \(title)"
        return content
    }

    /// Device `i`'s tags: `fans` unless `i % 3 == 0`, `muted` when `i % 10 == 0`.
    static func tags(_ index: Int) -> [String] {
        (index % 3 == 0 ? [] : ["fans"]) + (index % 10 == 0 ? ["muted"] : [])
    }

    static func id(_ index: Int) -> String { String(format: "p%04d", index) }

    @Test(
        "a tag push reaches each matching active device once through two workers; 410 and 400 are recorded failures; the statistics add up and match the endpoint's log"
    )
    func tagPushThroughWorkers() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
        let count = 240
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-a") { storeA in
            try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-b") { storeB in
                let clientA = try side.client()
                let clientB = try side.client()
                let a = ServerWorker(store: storeA, development: clientA, production: clientA, clock: clock)
                let b = ServerWorker(store: storeB, development: clientB, production: clientB, clock: clock)
                let push = PushService(store: storeA, clock: clock)
                var expected: [String: String] = [:]  // device -> token
                var gone: Set<String> = []
                var refused: Set<String> = []
                for index in 0..<count {
                    let device = registration(Self.id(index), zone: index % 2 == 0 ? "Europe/Paris" : "Asia/Tokyo")
                    try await a.devices.register(device)
                    if !Self.tags(index).isEmpty { try await push.bindTags(Self.tags(index), deviceID: device.id) }
                    if Self.tags(index) == ["fans"] { expected[device.id] = device.token }
                    if index % 17 == 1 { side.answer(.unregistered, token: device.token); gone.insert(device.token) }
                    if index % 23 == 2 {
                        side.answer(.badDeviceToken, token: device.token); refused.insert(device.token)
                    }
                }
                // An inactive device that matches is not reached.
                try await storeA.deactivateDevice(id: Self.id(1), at: Self.start)
                expected[Self.id(1)] = nil
                gone.remove(registration(Self.id(1), zone: "UTC").token)

                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await a.run() }
                    group.addTask { await b.run() }
                    defer { group.cancelAll() }
                    let expression = try TagExpression(json: ["and": [["tag": "fans"], ["not": ["tag": "muted"]]]])
                    let message = PushMessage(
                        target: .tag(expression), content: Self.content("Match tonight"), sendTime: .now,
                        createdAt: clock.now)
                    try await push.send([message])
                    // The workers also hear of it through LISTEN unotify_push (PushListenTests); waking them here
                    // keeps this test from depending on when their LISTEN took effect.
                    a.fanOut.wake()
                    b.fanOut.wake()
                    let done = await eventually {
                        guard let statistics = try? await push.statistics(id: message.id) else { return false }
                        return statistics.targeted == expected.count && statistics.sent == expected.count
                    }
                    let statistics = try #require(try await push.statistics(id: message.id))
                    #expect(done, "\(statistics)")
                    let received = side.received.filter { $0.title == "Match tonight" }
                    // Each reached device once, and only those.
                    #expect(received.count == expected.count)
                    #expect(Set(received.map(\.token)) == Set(expected.values))
                    #expect(Set(received.map(\.apnsID)).count == received.count)
                    let accepted = received.filter { $0.status == 200 }.count
                    let goneCount = received.filter { $0.status == 410 }.count
                    let refusedCount = received.filter { $0.status == 400 }.count
                    #expect(goneCount > 0 && refusedCount > 0)
                    #expect(goneCount == Set(expected.values).intersection(gone).count)
                    #expect(refusedCount == Set(expected.values).intersection(refused).count)
                    #expect(statistics.targeted == expected.count)
                    #expect(statistics.accepted == accepted)
                    #expect(statistics.failedCount == goneCount + refusedCount)
                    #expect(statistics.sent == statistics.accepted + statistics.failedCount)
                    #expect(statistics.pending == 0)
                    // Every answer was recorded at the manual clock's 12:00: one hour.
                    #expect(
                        statistics.byHour == [
                            PushStatistics.Hour(
                                start: Self.start, accepted: accepted, failed: goneCount + refusedCount)
                        ])
                    #expect(
                        statistics.failed.filter { $0.key.contains("Unregistered") }.values.reduce(0, +) == goneCount)
                    #expect(
                        statistics.failed.filter { $0.key.contains("BadDeviceToken") }.values.reduce(0, +)
                            == refusedCount)
                    let topic = try await push.statistics(topic: "com.example.app")
                    #expect(topic.accepted == accepted && topic.failedCount == goneCount + refusedCount)
                    #expect(try await push.push(id: message.id)?.state == .done)
                }
                try await clientA.shutdown()
                try await clientB.shutdown()
            }
        }
        await side.stop()
    }

    @Test("three workers fanning out one push in pages of 7 enqueue each reached device exactly once")
    func concurrentPages() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let push = PushService(store: store, clock: ManualNotificationClock(now: Self.start))
            let registry = DeviceScheduler(
                store: store,
                scheduler: NotificationScheduler(
                    store: store, clock: ManualNotificationClock(now: Self.start), presenter: NoPresenter()))
            for index in 0..<150 {
                try await registry.register(registration(Self.id(index), zone: "UTC"))
                if index % 2 == 0 { try await push.bindAccount("even", deviceID: Self.id(index)) }
            }
            // 150 known devices listed with 850 unknown ones: 1,000 identifiers.
            let listed = (0..<150).map(Self.id) + (0..<850).map { "ghost-\($0)" }
            let pushes = [
                PushMessage(
                    target: .devices(listed), content: Self.content("listed"), sendTime: .now, createdAt: Self.start),
                PushMessage(
                    target: .account("even"), content: Self.content("even"), sendTime: .now, createdAt: Self.start),
                PushMessage(target: .all, content: Self.content("all"), sendTime: .now, createdAt: Self.start),
                PushMessage(
                    target: .alias("nobody"), content: Self.content("empty"), sendTime: .now, createdAt: Self.start),
            ]
            try await push.send(pushes)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<3 {
                    group.addTask {
                        try await PostgresNotificationStore.withStore(configuration: configuration, owner: "w\(worker)")
                        {
                            mine in
                            var pages = 0
                            while try await mine.fanOutNextPage(at: Self.start, pageSize: 7, cap: nil) != nil {
                                pages += 1
                            }
                            return pages
                        }
                    }
                }
                var pages = 0
                for try await count in group { pages += count }
                // 22 pages of 150 devices twice (the last one short), 11 of 75, and 1 empty: 56 in all.
                #expect(pages == 22 + 22 + 11 + 1)
            }
            let counts = try await store.pendingCounts()
            #expect(counts.count == 150)
            for index in 0..<150 {
                #expect(counts[Device.appID(forDevice: Self.id(index))] == (index % 2 == 0 ? 3 : 2))
            }
            let targeted = try await pushes.asyncMap { try await push.statistics(id: $0.id)?.targeted }
            #expect(targeted == [150, 75, 150, 0])
            for message in pushes { #expect(try await push.push(id: message.id)?.state == .done) }
        }
    }

    @Test(
        "a local-time push fires at 9:00 in each device's zone; a zone already past gets it at once; an absolute time waits for its instant"
    )
    func sendTimes() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let push = PushService(store: store, clock: ManualNotificationClock(now: Self.start))
            let registry = DeviceScheduler(
                store: store,
                scheduler: NotificationScheduler(
                    store: store, clock: ManualNotificationClock(now: Self.start), presenter: NoPresenter()))
            for (id, zone) in [("paris", "Europe/Paris"), ("tokyo", "Asia/Tokyo"), ("newyork", "America/New_York")] {
                try await registry.register(registration(id, zone: zone))
            }
            var nine = CalendarComponents()
            (nine.year, nine.month, nine.day, nine.hour, nine.minute) = (2026, 11, 27, 9, 0)
            let local = PushMessage(
                target: .all, content: Self.content("local"), sendTime: .localTime(nine), createdAt: Self.start)
            let later = PushMessage(
                target: .all, content: Self.content("later"), sendTime: .at(instant("2026-11-27T06:00:00Z")),
                createdAt: Self.start)
            try await push.send([local, later])
            // 9:00 reaches UTC+14 at 19:00 UTC on the 26th: nothing is ready before.
            #expect(try await store.fanOutNextPage(at: instant("2026-11-26T18:59:59Z"), cap: nil) == nil)
            #expect(try await store.nextPushReady() == instant("2026-11-26T19:00:00Z"))
            // Fanned out at 05:00 UTC on the 27th: 9:00 is past in Tokyo (14:00 there), to come in Paris and New York.
            let fanOutTime = instant("2026-11-27T05:00:00Z")
            let page = try #require(try await store.fanOutNextPage(at: fanOutTime, cap: nil))
            #expect(page.messageID == local.id && page.enqueued == 3 && page.finished)
            var fires: [String: Date] = [:]
            for id in ["paris", "tokyo", "newyork"] {
                let requests = try await store.pendingRequests(appID: Device.appID(forDevice: id))
                #expect(requests.map(\.identifier) == [local.requestIdentifier])
                fires[id] = requests.first?.nextFireDate
                #expect(requests.first?.spec.content.userInfo[PushMessage.messageIDKey] == .string(local.id))
            }
            #expect(
                fires == [
                    "paris": instant("2026-11-27T08:00:00Z"), "tokyo": fanOutTime,
                    "newyork": instant("2026-11-27T14:00:00Z"),
                ])
            #expect(try await store.fanOutNextPage(at: fanOutTime, cap: nil) == nil)
            let due = try #require(try await store.fanOutNextPage(at: instant("2026-11-27T06:00:00Z"), cap: nil))
            #expect(due.messageID == later.id && due.enqueued == 3)
        }
    }

    @Test(
        "cancelling: a scheduled push is never fanned out; a fanned-out one loses its pending requests; nothing is left to cancel twice"
    )
    func cancelling() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let push = PushService(store: store, clock: ManualNotificationClock(now: Self.start))
            let registry = DeviceScheduler(
                store: store,
                scheduler: NotificationScheduler(
                    store: store, clock: ManualNotificationClock(now: Self.start), presenter: NoPresenter()))
            for index in 0..<5 { try await registry.register(registration(Self.id(index), zone: "America/New_York")) }
            var nine = CalendarComponents()
            (nine.year, nine.month, nine.day, nine.hour, nine.minute) = (2026, 11, 27, 9, 0)
            let scheduled = PushMessage(
                target: .all, content: Self.content("a"), sendTime: .at(instant("2026-11-27T00:00:00Z")),
                createdAt: Self.start)
            let fanned = PushMessage(
                target: .all, content: Self.content("b"), sendTime: .localTime(nine), createdAt: Self.start)
            try await push.send([scheduled, fanned])
            #expect(try await push.cancel(id: scheduled.id) == 0)
            #expect(try await push.push(id: scheduled.id)?.state == .cancelled)
            let page = try #require(try await store.fanOutNextPage(at: instant("2026-11-27T01:00:00Z"), cap: nil))
            #expect(page.messageID == fanned.id && page.enqueued == 5)
            #expect(try await store.fanOutNextPage(at: instant("2026-11-27T01:00:00Z"), cap: nil) == nil)
            #expect(try await push.cancel(id: fanned.id) == 5)
            #expect(try await store.pendingCount() == 0)
            let statistics = try #require(try await push.statistics(id: fanned.id))
            #expect(statistics.targeted == 5 && statistics.cancelled == 5 && statistics.pending == 0)
            for id in [scheduled.id, fanned.id] {
                let again = await #expect(throws: PushError.self) { try await push.cancel(id: id) }
                #expect(again?.code == .alreadySent)
            }
            let unknown = await #expect(throws: PushError.self) { try await push.cancel(id: "nope") }
            #expect(unknown?.code == .unknownMessage)
        }
    }

    @Test(
        "a device APNs reports gone, or one removed, fails its pending pushes with a reason: the statistics still add up"
    )
    func droppedDevicesFailTheirPushes() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let clock = ManualNotificationClock(now: Self.start)
            let push = PushService(store: store, clock: clock)
            let registry = DeviceScheduler(
                store: store, scheduler: NotificationScheduler(store: store, clock: clock, presenter: NoPresenter()))
            for index in 0..<4 { try await registry.register(registration(Self.id(index), zone: "UTC")) }
            // Two pushes for tomorrow, fanned out now: every device holds one pending request of each.
            let pushes = ["a", "b"].map { title in
                PushMessage(
                    target: .all, content: Self.content(title), sendTime: .at(instant("2026-11-27T09:00:00Z")),
                    createdAt: Self.start)
            }
            try await push.send(pushes)
            while try await store.fanOutNextPage(at: instant("2026-11-27T09:00:00Z"), cap: nil) != nil {}
            #expect(try await store.pendingCount() == 8)
            // A 410 for another notification of p0000 deactivates it; p0001 is removed by the backend.
            try await store.deactivateDevice(id: Self.id(0), at: clock.now)
            try await registry.remove(deviceID: Self.id(1))
            #expect(try await store.pendingCount() == 4)
            for message in pushes {
                let statistics = try #require(try await push.statistics(id: message.id))
                #expect(statistics.targeted == 4 && statistics.accepted == 0)
                #expect(
                    statistics.failed == [
                        PostgresNotificationStore.deviceGoneReason: 1, PostgresNotificationStore.deviceRemovedReason: 1,
                    ])
                #expect(statistics.sent == 2 && statistics.pending == 2 && statistics.cancelled == 0)
                #expect(statistics.sent + statistics.cancelled + statistics.pending == statistics.targeted)
            }
        }
    }

    @Test("an expired push is sent to nobody")
    func expiry() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let push = PushService(store: store, clock: ManualNotificationClock(now: Self.start))
            try await DeviceScheduler(
                store: store,
                scheduler: NotificationScheduler(
                    store: store, clock: ManualNotificationClock(now: Self.start), presenter: NoPresenter())
            ).register(registration("d", zone: "UTC"))
            let message = PushMessage(
                target: .all, content: Self.content("x"), sendTime: .at(instant("2026-11-26T13:00:00Z")),
                expiresAt: instant("2026-11-26T12:30:00Z"), createdAt: Self.start)
            try await push.send([message])
            let page = try #require(try await store.fanOutNextPage(at: instant("2026-11-26T13:00:00Z"), cap: nil))
            #expect(page.enqueued == 0 && page.finished)
            #expect(try await push.push(id: message.id)?.state == .expired)
            #expect(try await store.pendingCount() == 0)
        }
    }

    @Test(
        "a push's expiry and collapse id reach APNs as apns-expiration and apns-collapse-id (push:<id> when it names none); a collapse id over 64 bytes is refused"
    )
    func expiryAndCollapseIDReachAPNs() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
        try await WorkerDeliveryTests().withTwoWorkers(side: side, clock: clock, running: (true, false)) { a, _, _ in
            try await a.devices.register(registration("d1", zone: "Europe/Paris"))
            try await a.devices.register(registration("d2", zone: "Asia/Tokyo"))
            let push = PushService(store: a.store, clock: clock)
            let expiry = instant("2026-11-26T18:00:00Z")
            let named = PushMessage(
                target: .all, content: Self.content("named"), sendTime: .now, expiresAt: expiry,
                collapseID: "match-42", createdAt: clock.now)
            let plain = PushMessage(
                target: .devices(["d1"]), content: Self.content("plain"), sendTime: .now, createdAt: clock.now)
            // A message identifier too long for `push:<id>` in 64 bytes: no collapse id at all.
            let long = PushMessage(
                id: String(repeating: "m", count: 60), target: .devices(["d2"]), content: Self.content("long"),
                sendTime: .now, createdAt: clock.now)
            try await push.send([named, plain, long])
            a.fanOut.wake()
            let arrived = await eventually { side.received.count >= 4 }
            let received = side.received
            #expect(arrived, "\(received)")
            let named2 = received.filter { $0.title == "named" }
            #expect(named2.count == 2)
            #expect(named2.allSatisfy { $0.collapseID == "match-42" && $0.status == 200 })
            #expect(named2.allSatisfy { $0.expiration == "\(Int(expiry.timeIntervalSince1970))" })
            // The worker still chooses the priority: 10 for a visible notification.
            #expect(named2.allSatisfy { $0.priority == "10" })
            let plainReceived = try #require(received.first { $0.title == "plain" })
            #expect(plainReceived.collapseID == "push:\(plain.id)")
            #expect(plainReceived.expiration == "")
            let longReceived = try #require(received.first { $0.title == "long" })
            #expect(longReceived.collapseID == "" && longReceived.status == 200)
            // Stored and shown as sent.
            #expect(try await push.push(id: named.id)?.collapseID == "match-42")
            #expect(try await push.push(id: named.id)?.expiresAt == expiry)
            #expect(try await push.push(id: plain.id)?.collapseID == nil)

            for bad in ["", String(repeating: "é", count: 33)] {  // 0 and 66 bytes
                let refused = PushMessage(
                    target: .all, content: Self.content("bad"), sendTime: .now, collapseID: bad, createdAt: clock.now)
                let error = await #expect(throws: PushError.self) { try await push.send([refused]) }
                #expect(error?.code == .invalidPush)
                #expect(try await push.push(id: refused.id) == nil)
            }
            let fits = PushMessage(
                target: .all, content: Self.content("fits"), sendTime: .at(instant("2026-11-27T12:00:00Z")),
                collapseID: String(repeating: "é", count: 32), createdAt: clock.now)
            try await push.send([fits])
            #expect(try await push.push(id: fits.id)?.collapseID == String(repeating: "é", count: 32))
        }
        await side.stop()
    }

    @Test(
        "mutable-content and content-available reach APNs in aps; a push with only content-available is a background push (push type background, priority 5, no alert, no sound)"
    )
    func apsFlagsReachAPNs() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
        try await WorkerDeliveryTests().withTwoWorkers(side: side, clock: clock, running: (true, false)) { a, _, _ in
            try await a.devices.register(registration("d1", zone: "Europe/Paris"))
            let push = PushService(store: a.store, clock: clock)
            var rich = PushMessage(
                target: .devices(["d1"]), content: Self.content("rich"), sendTime: .now, createdAt: clock.now)
            rich.mutableContent = true
            var silent = PushMessage(
                target: .devices(["d1"]), content: NotificationPayload(), sendTime: .now, createdAt: clock.now)
            silent.content.userInfo = ["sync": .string("inbox")]
            silent.contentAvailable = true
            try await push.send([rich, silent])
            #expect(try await push.push(id: rich.id)?.mutableContent == true)
            #expect(try await push.push(id: silent.id)?.contentAvailable == true)
            a.fanOut.wake()
            let arrived = await eventually { side.received.count >= 2 }
            let received = side.received
            #expect(arrived, "\(received)")
            let richReceived = try #require(received.first { $0.title == "rich" })
            #expect(richReceived.aps["mutable-content"] as? Int == 1 && richReceived.aps["content-available"] == nil)
            #expect(richReceived.pushType == "alert" && richReceived.priority == "10")
            let silentReceived = try #require(received.first { $0.title.isEmpty })
            #expect(silentReceived.aps["content-available"] as? Int == 1 && silentReceived.aps["mutable-content"] == nil)
            #expect(silentReceived.aps["alert"] == nil && silentReceived.aps["sound"] == nil)
            #expect(silentReceived.pushType == "background" && silentReceived.priority == "5")
            #expect(await eventually { (try? await push.statistics(id: silent.id))?.accepted == 1 })
        }
        await side.stop()
    }

    @Test("over HTTP, mutableContent and contentAvailable are stored and shown; contentAvailable alone needs no text and has no sound")
    func apsFlagsOverHTTP() async throws {
        try await withAPI { client, push in
            let (status, answer) = try await ServerAPITests.send(
                client, .post, "/v1/pushes",
                #"{"target":{"all":true},"title":"t","mutableContent":true,"contentAvailable":true}"#)
            #expect(status == .accepted, "\(answer)")
            let id = try #require(answer["messageId"] as? String)
            let (_, shown) = try await ServerAPITests.send(client, .get, "/v1/pushes/\(id)")
            #expect(shown["mutableContent"] as? Bool == true && shown["contentAvailable"] as? Bool == true)
            let (background, silent) = try await ServerAPITests.send(
                client, .post, "/v1/pushes", #"{"target":{"all":true},"contentAvailable":true,"badge":3}"#)
            #expect(background == .accepted, "\(silent)")
            let silentID = try #require(silent["messageId"] as? String)
            let stored = try #require(try await push.push(id: silentID))
            #expect(stored.contentAvailable && !stored.mutableContent && !stored.content.hasVisibleText)
            #expect(stored.content.sound == nil && stored.content.badge == 3)
            #expect(stored.apnsOptions.contentAvailable)
        }
    }

    @Test("LISTEN unotify_push reports a push inserted by another store instance")
    func listening() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { listener in
            try await PostgresNotificationStore.withStore(configuration: configuration) { writer in
                let heard = DeviceSide.Locked(0)
                let ready = DeviceSide.Locked(false)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await listener.listenForPushes(onListening: { ready.withLock { $0 = true } }) {
                            heard.withLock { $0 += 1 }
                        }
                    }
                    defer { group.cancelAll() }
                    #expect(await eventually { ready.withLock { $0 } })
                    try await writer.insertPushes([
                        PushMessage(target: .all, content: Self.content("x"), sendTime: .now, createdAt: Self.start)
                    ])
                    #expect(await eventually { heard.withLock { $0 } == 1 })
                }
            }
        }
    }

    // MARK: - HTTP

    func withAPI(_ body: @escaping @Sendable (any TestClientProtocol, PushService) async throws -> Void) async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: NoPresenter())
            let api = ServerAPI(
                devices: DeviceScheduler(store: store, scheduler: scheduler), token: ServerAPITests.token)
            try await Application(router: api.router()).test(.router) { client in
                #expect(try await ServerAPITests.send(client, .put, "/v1/devices/d1", ServerAPITests.device).0 == .ok)
                try await body(client, PushService(store: store, clock: clock))
            }
        }
    }

    @Test(
        "POST /v1/pushes answers a message id at once; pushes are shown, cancelled, fanned out, counted per push and per topic"
    )
    func pushOverHTTP() async throws {
        try await withAPI { client, push in
            let body = #"""
                {"target":{"tag":{"or":[{"tag":"news"},{"not":{"tag":"news"}}]}},"title":"Hi","subtitle":"s","body":"b",
                 "badge":2,"sound":"none","category":"cat","thread":"th","extras":{"Extras":"x","n":1},
                 "sendAt":"2026-11-27T08:00:00Z","expiresAt":"2026-11-28T08:00:00Z","collapseId":"match-42"}
                """#
            let (status, answer) = try await ServerAPITests.send(client, .post, "/v1/pushes", body)
            #expect(status == .accepted)
            let id = try #require(answer["messageId"] as? String)
            let stored = try #require(try await push.push(id: id))
            #expect(
                stored.content.badge == 2 && stored.content.sound == nil && stored.content.categoryIdentifier == "cat")
            #expect(stored.content.userInfo["Extras"] == .string("x"))
            #expect(stored.sendTime == .at(instant("2026-11-27T08:00:00Z")))
            let (shown, object) = try await ServerAPITests.send(client, .get, "/v1/pushes/\(id)")
            #expect(shown == .ok)
            #expect(object["state"] as? String == "scheduled")
            #expect(object["collapseId"] as? String == "match-42" && stored.collapseID == "match-42")
            #expect(object["expiresAt"] as? String == "2026-11-28T08:00:00Z")
            #expect((object["statistics"] as? [String: Any])?["targeted"] as? Int == 0)
            let (cancelled, result) = try await ServerAPITests.send(client, .delete, "/v1/pushes/\(id)")
            #expect(cancelled == .ok && result["cancelled"] as? Int == 0)
            let (again, reason) = try await ServerAPITests.send(client, .delete, "/v1/pushes/\(id)")
            #expect(again == .conflict && reason["reason"] as? String == "AlreadySent")

            let mass =
                #"{"pushes":[{"target":{"all":true},"title":"one"},{"target":{"alias":"nobody"},"title":"two"}]}"#
            let (accepted, ids) = try await ServerAPITests.send(client, .post, "/v1/mass-pushes", mass)
            #expect(accepted == .accepted)
            let messageIDs = try #require(ids["messageIds"] as? [String])
            #expect(messageIDs.count == 2)
            while try await push.store.fanOutNextPage(at: Self.start, cap: nil) != nil {}
            // An empty audience is accepted (202), and its statistics say it reached nobody.
            let (_, empty) = try await ServerAPITests.send(client, .get, "/v1/pushes/\(messageIDs[1])")
            #expect(empty["state"] as? String == "done")
            #expect((empty["statistics"] as? [String: Any])?["targeted"] as? Int == 0)
            let (_, all) = try await ServerAPITests.send(client, .get, "/v1/pushes/\(messageIDs[0])")
            #expect((all["statistics"] as? [String: Any])?["targeted"] as? Int == 1)
            #expect((all["statistics"] as? [String: Any])?["pending"] as? Int == 1)
            let (_, topic) = try await ServerAPITests.send(client, .get, "/v1/topics/com.example.app/statistics")
            #expect(topic["targeted"] as? Int == 1)
            // Prometheus: the newest pushes' figures, read at the scrape.
            let scrape = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(ServerAPITests.token)"], body: nil)
            let metrics = String(buffer: scrape.body)
            // Per app too: the topic's figures and failures by reason, read at the scrape.
            #expect(metrics.contains(#"unotify_topic_targeted{topic="com.example.app"} 1.0"# + "\n"), "\(metrics)")
            #expect(metrics.contains(#"unotify_topic_pending{topic="com.example.app"} 1.0"# + "\n"))
            #expect(metrics.contains(#"unotify_push_targeted{message_id="\#(messageIDs[0])"} 1.0"# + "\n"), "\(metrics)")
            #expect(metrics.contains(#"unotify_push_pending{message_id="\#(messageIDs[0])"} 1.0"# + "\n"))
            #expect(metrics.contains(#"unotify_push_targeted{message_id="\#(messageIDs[1])"} 0.0"# + "\n"))
            #expect(metrics.contains(#"unotify_push_cancelled{message_id="\#(id)"} 0.0"# + "\n"))
            #expect(
                try await ServerAPITests.send(client, .get, "/v1/pushes/nope").1["reason"] as? String
                    == "UnknownMessage")
        }
    }

    @Test(
        "bad pushes get a 4xx JSON reason and store nothing",
        arguments: [
            (#"{"target":{"everyone":true},"title":"t"}"#, 400, "UnknownTarget"),
            (#"{"target":"all","title":"t"}"#, 400, "UnknownTarget"),
            (#"{"title":"t"}"#, 400, "BadRequest"),
            (
                #"{"target":{"devices":[\#((0..<1001).map { "\"d\($0)\"" }.joined(separator: ","))]},"title":"t"}"#,
                400,
                "TooManyDevices"
            ),
            (#"{"target":{"tag":{"and":[{"tag":"a"},{"nor":[]}]}},"title":"t"}"#, 400, "InvalidTagExpression"),
            (#"{"target":{"all":true}}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","sendAt":"tomorrow"}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","localTime":"2026-11-27 09:00"}"#, 400, "BadRequest"),
            (
                #"{"target":{"all":true},"title":"t","sendAt":"2026-11-27T08:00:00Z","localTime":"2026-11-27T09:00"}"#,
                400,
                "BadRequest"
            ),
            (#"{"target":{"all":true},"title":"t","expiresAt":"2026-11-26T11:00:00Z"}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","mutableContent":1}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"contentAvailable":"yes"}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"contentAvailable":false}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","priority":5}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","collapseId":""}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","collapseId":"\#(String(repeating: "c", count: 65))"}"#, 400, "BadRequest"),
            (#"{"target":{"all":true},"title":"t","collapseId":7}"#, 400, "BadRequest"),
            (#"{"target":{"account":""},"title":"t"}"#, 400, "InvalidPush"),
            (#"{"target":{"all":true},"title":"t","localTime":"2026-02-30T09:00"}"#, 400, "InvalidPush"),
            (#"{"target":{"all":true},"title":"\#(String(repeating: "x", count: 70_000))"}"#, 413, "PayloadTooLarge"),
        ])
    func badPushes(body: String, status: Int, reason: String) async throws {
        try await withAPI { client, push in
            let (answered, answer) = try await ServerAPITests.send(client, .post, "/v1/pushes", body)
            #expect(answered.code == status, "\(answer)")
            #expect(answer["reason"] as? String == reason, "\(answer)")
            #expect(try await push.store.nextPushReady() == nil)
        }
    }

    @Test("a mass push of 101 is refused; one bad push refuses the whole call")
    func massPushLimits() async throws {
        try await withAPI { client, push in
            let one = #"{"target":{"all":true},"title":"t"}"#
            let tooMany = #"{"pushes":[\#(Array(repeating: one, count: 101).joined(separator: ","))]}"#
            let (status, answer) = try await ServerAPITests.send(client, .post, "/v1/mass-pushes", tooMany)
            #expect(status == .badRequest && answer["reason"] as? String == "TooManyPushes")
            let mixed = #"{"pushes":[\#(one),{"target":{"nobody":1},"title":"t"}]}"#
            let (refused, why) = try await ServerAPITests.send(client, .post, "/v1/mass-pushes", mixed)
            #expect(refused == .badRequest && why["reason"] as? String == "UnknownTarget")
            #expect((why["detail"] as? String)?.hasPrefix("pushes[1].target") == true)
            #expect(try await push.store.nextPushReady() == nil)
            let hundred = #"{"pushes":[\#(Array(repeating: one, count: 100).joined(separator: ","))]}"#
            #expect(try await ServerAPITests.send(client, .post, "/v1/mass-pushes", hundred).0 == .accepted)
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
