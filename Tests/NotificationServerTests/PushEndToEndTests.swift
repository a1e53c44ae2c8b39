import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import NotificationAPNsProvider
import NotificationEngine
import NotificationModel
import NotificationPush
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PushServiceClient
import PushTestSupport
import TestPrograms
import Testing

/// Issue 20's end-to-end test: a backend pushes by tag over HTTP to 1,000 devices of three apps; two real workers fan
/// it out and deliver it to our APNs endpoint in this process; a `PushServiceClient` per reached device reports
/// receipts from the payload the endpoint got (a tenth of them offline first, flushed later by a new instance on the
/// same folder); the statistics must add up exactly.
@Suite(
    "Push service end to end: a tag push to 1,000 devices of three apps, a client per device", .timeLimit(.minutes(5)))
struct PushEndToEndTests {
    static let start = instant("2026-11-26T12:00:00Z")
    /// The three simulated apps.
    static let topics = ["com.example.news", "com.example.sports", "com.example.shop"]
    /// How many devices: 1,000 unless `OPENUN_PUSH_E2E_DEVICES` says otherwise (at least 100).
    static let deviceCount =
        ProcessInfo.processInfo.environment["OPENUN_PUSH_E2E_DEVICES"].flatMap(Int.init)
        .map { max($0, 100) } ?? 1_000
    /// How many clients talk to the API at once.
    static let concurrency = 16

    /// One simulated device: what the test gives it and what it will do.
    struct Plan: Sendable {
        var index: Int
        var registration: DeviceRegistration
        /// `fans` unless `index % 4 == 0`, `muted` when `index % 10 == 0`, and its app's own tag.
        var tags: [String]
        /// Deactivated after binding its tags (a matching device is then not reached).
        var inactive: Bool
        /// What the endpoint answers for its token (`nil`: 200).
        var answer: APNsReason?
        /// Offline when it reports its receipts: they wait in its queue until a new instance flushes them.
        var offline: Bool

        var id: String { registration.id }
        var token: String { registration.token }
        var matches: Bool { tags.contains("fans") && !tags.contains("muted") && !inactive }

        /// What the device reports, one call each: `received`, then for five devices in seven `opened` (twice: a
        /// second tap, which the server counts once), `dismissed` or an action.
        var reports: [PushServiceClient.ReceiptKind] {
            switch index % 7 {
            case 0: [.received, .opened]
            case 1: [.received, .opened, .opened]
            case 2: [.received, .dismissed]
            case 3: [.received, .action("reply")]
            case 4: [.received, .action("later")]
            default: [.received]
            }
        }

        init(_ index: Int) {
            self.index = index
            let topic = PushEndToEndTests.topics[index % 3]
            var registration = NotificationServerTests.registration(
                String(format: "e%04d", index), zone: index % 2 == 0 ? "Europe/Paris" : "America/New_York")
            registration.topic = topic
            self.registration = registration
            tags = (index % 4 == 0 ? [] : ["fans"]) + (index % 10 == 0 ? ["muted"] : []) + ["app-\(index % 3)"]
            inactive = index % 97 == 5
            answer = index % 17 == 1 ? .unregistered : index % 23 == 2 ? .badDeviceToken : nil
            offline = index % 10 == 3
        }
    }

    /// A topic's `received` and `opened` receipts, read over HTTP.
    static func topicReceipts(_ http: HTTPClient, _ url: URL, topic: String) async throws
        -> (received: Int, opened: Int)
    {
        let (status, object) = try await backend(http, url, .GET, "/v1/topics/\(topic)/statistics")
        #expect(status == 200)
        return (object["received"] as? Int ?? -1, object["opened"] as? Int ?? -1)
    }

    @Test(
        "a tag push over HTTP reaches 1,000 devices' matching ones once through two workers; every client's receipts, offline ones after a later flush, count exactly once; sent = accepted + failed, opened <= received, per-app sums equal the push's"
    )
    func tagPushToDevicesWithClients() async throws {
        let wall = ContinuousClock.now
        // Each phase's wall time, printed at the end (the figure the commit and docs quote).
        let timing = DeviceSide.Locked<(mark: ContinuousClock.Instant, phases: [String])>((wall, []))
        @Sendable func phase(_ name: String) {
            timing.withLock { timing in
                let seconds = (ContinuousClock.now - timing.mark) / .milliseconds(10)
                timing.phases.append("\(name) \(Double(Int(seconds)) / 100) s")
                timing.mark = ContinuousClock.now
            }
        }
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let queues = try temporaryFolder("push-e2e")
        defer { try? FileManager.default.removeItem(at: queues) }
        let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
        let plans = (0..<Self.deviceCount).map(Plan.init)
        let configuration = try await freshDatabase()
        // The online clients share one HTTP client; the offline ones one that fails at once on a refused connection.
        var online = HTTPClient.Configuration()
        online.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.concurrency
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: online)
        var failFast = HTTPClient.Configuration()
        failFast.connectionPool.retryConnectionEstablishment = false
        let offlineHTTP = HTTPClient(eventLoopGroupProvider: .singleton, configuration: failFast)
        let quiet = {  // 100 offline clients would log each failed attempt
            var logger = Logger(label: "push-e2e.client")
            logger.logLevel = .error
            return logger
        }()
        let apnsA = try side.client()
        let apnsB = try side.client()
        do {
            try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-a") { storeA in
                try await PostgresNotificationStore.withStore(configuration: configuration, owner: "worker-b") {
                    storeB in
                    let a = ServerWorker(store: storeA, development: apnsA, production: apnsA, clock: clock)
                    let b = ServerWorker(store: storeB, development: apnsB, production: apnsB, clock: clock)
                    let api = ServerAPI(devices: a.devices, token: ServerAPITests.token)
                    let push = PushService(store: storeA, clock: clock)
                    try await Application(router: api.router()).test(.live) { client in
                        let port = try #require(client.port)
                        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                        phase("setup")

                        // The backend registers every device; each app binds its own tags with its device token.
                        try await Self.forEach(plans) { plan in
                            try await a.devices.register(plan.registration)
                            let app = try PushServiceClient(
                                serverURL: url, deviceID: plan.id, deviceToken: plan.token,
                                queueFolder: queues.appendingPathComponent(plan.id), clock: clock, httpClient: http,
                                logger: quiet)
                            let audience = try await app.bindTags(plan.tags)
                            #expect(Set(audience.tags) == Set(plan.tags), "\(plan.id)")
                            if plan.inactive { _ = try await storeA.deactivateDevice(id: plan.id, at: Self.start) }
                            if let answer = plan.answer { side.answer(answer, token: plan.token) }
                        }
                        let expected = plans.filter(\.matches)
                        #expect(expected.count > Self.deviceCount / 2 && expected.count < Self.deviceCount)
                        #expect(
                            plans.contains { $0.inactive && $0.tags.contains("fans") && !$0.tags.contains("muted") })
                        phase("register and bind")

                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask { await a.run() }
                            group.addTask { await b.run() }
                            defer { group.cancelAll() }
                            // The backend's push, over HTTP with its token.
                            let body = #"""
                                {"target": {"tag": {"and": [{"tag": "fans"}, {"not": {"tag": "muted"}}]}},
                                 "title": "Match tonight", "category": "match", "extras": {"match": "42"}}
                                """#
                            let (status, answer) = try await Self.backend(http, url, .POST, "/v1/pushes", body)
                            #expect(status == 202)
                            let messageID = try #require(answer["messageId"] as? String)
                            a.fanOut.wake()
                            b.fanOut.wake()
                            let delivered = await eventually(within: 180) {
                                guard let statistics = try? await push.statistics(id: messageID) else { return false }
                                return statistics.targeted == expected.count && statistics.sent == expected.count
                            }
                            let statistics = try #require(try await push.statistics(id: messageID))
                            #expect(delivered, "\(statistics)")
                            phase("fan-out and delivery")

                            // What the endpoint got: each reached device's token once, nobody else.
                            let received = side.received.filter { $0.title == "Match tonight" }
                            #expect(received.count == expected.count)
                            #expect(Set(received.map(\.token)) == Set(expected.map(\.token)))
                            #expect(Set(received.map(\.apnsID)).count == received.count)
                            let byToken = Dictionary(uniqueKeysWithValues: plans.map { ($0.token, $0) })
                            let accepted = received.filter { $0.status == 200 }
                            let gone = received.filter { $0.status == 410 }.count
                            let refused = received.filter { $0.status == 400 }.count
                            #expect(gone > 0 && refused > 0)
                            #expect(accepted.count + gone + refused == received.count)
                            for delivery in received {
                                #expect(delivery.topic == byToken[delivery.token]?.registration.topic)
                            }

                            // A client per device that got it (200): received, and opened, dismissed or an action
                            // for some, from the userInfo the endpoint received. A tenth are offline: their
                            // instances are kept for a retry after the clock moves.
                            let reporting = accepted.compactMap { delivery in
                                byToken[delivery.token].map { (plan: $0, payload: delivery.payload) }
                            }
                            let offlinePlans = reporting.filter(\.plan.offline).map(\.plan)
                            #expect(offlinePlans.count > 0)
                            let offlineApps = DeviceSide.Locked<[String: PushServiceClient]>([:])
                            try await Self.forEach(reporting) { device in
                                let app = try PushServiceClient(
                                    serverURL: device.plan.offline ? Self.closedPort : url, deviceID: device.plan.id,
                                    deviceToken: device.plan.token,
                                    queueFolder: queues.appendingPathComponent(device.plan.id), clock: clock,
                                    httpClient: device.plan.offline ? offlineHTTP : http, logger: quiet)
                                let userInfo = try Self.userInfo(device.payload)
                                #expect(userInfo[AnyHashable(PushServiceClient.messageIDKey)] as? String == messageID)
                                #expect(userInfo[AnyHashable("match")] as? String == "42")
                                for kind in device.plan.reports {
                                    #expect(try await app.handleReceiveRemoteNotification(userInfo, kind: kind))
                                }
                                let queued = await app.queuedCount
                                let kinds = device.plan.reports.count
                                #expect(queued == (device.plan.offline ? kinds : 0), "\(device.plan.id)")
                                if device.plan.offline {
                                    // The first call's attempt failed; the retry time (2 s on) has not come: a flush
                                    // makes no attempt and keeps the receipts.
                                    let result = try await app.flush()
                                    #expect(
                                        result
                                            == .init(
                                                sent: 0, dropped: 0, remaining: kinds,
                                                retryAt: Self.start.addingTimeInterval(
                                                    PushServiceClient.firstRetryDelay)))
                                    offlineApps.withLock { $0[device.plan.id] = app }
                                }
                            }
                            let onlineOnly = try #require(try await push.statistics(id: messageID))
                            #expect(onlineOnly.received == reporting.count - offlinePlans.count)
                            phase("receipts of \(reporting.count - offlinePlans.count) online clients")

                            // The injected clock passes the retry time: each offline instance tries again (still
                            // offline: it fails, and its next retry is 4 s on). Later, online again, a new instance on
                            // each offline device's folder sends its queue.
                            clock.advance(by: PushServiceClient.firstRetryDelay + 1)
                            let retried = clock.now
                            try await Self.forEach(offlinePlans) { plan in
                                let stale = try #require(offlineApps.withLock { $0[plan.id] })
                                let kinds = plan.reports.count
                                let again = try await stale.flush()
                                #expect(
                                    again
                                        == .init(
                                            sent: 0, dropped: 0, remaining: kinds,
                                            retryAt: retried.addingTimeInterval(2 * PushServiceClient.firstRetryDelay)))
                            }
                            let stillOffline = try #require(try await push.statistics(id: messageID))
                            #expect(stillOffline.received == onlineOnly.received)
                            try await Self.forEach(offlinePlans) { plan in
                                let app = try PushServiceClient(
                                    serverURL: url, deviceID: plan.id, deviceToken: plan.token,
                                    queueFolder: queues.appendingPathComponent(plan.id), clock: clock, httpClient: http,
                                    logger: quiet)
                                let kinds = plan.reports.count
                                #expect(await app.queuedCount == kinds)
                                let result = try await app.flush()
                                #expect(result == .init(sent: kinds, dropped: 0, remaining: 0, retryAt: nil))
                            }
                            phase("flush of \(offlinePlans.count) offline clients")

                            // The statistics, exactly.
                            let final = try #require(try await push.statistics(id: messageID))
                            #expect(final.targeted == expected.count)
                            #expect(final.sent == final.accepted + final.failedCount)
                            #expect(final.accepted == accepted.count)
                            #expect(final.failed.filter { $0.key.contains("Unregistered") }.values.reduce(0, +) == gone)
                            #expect(
                                final.failed.filter { $0.key.contains("BadDeviceToken") }.values.reduce(0, +) == refused
                            )
                            #expect(final.failedCount == gone + refused)
                            #expect(final.pending == 0 && final.cancelled == 0)
                            let plansReporting = reporting.map(\.plan)
                            #expect(final.received == plansReporting.count)
                            #expect(final.opened == plansReporting.filter { $0.reports.contains(.opened) }.count)
                            #expect(final.dismissed == plansReporting.filter { $0.reports.contains(.dismissed) }.count)
                            #expect(
                                final.actions == [
                                    "reply": plansReporting.filter { $0.reports.contains(.action("reply")) }.count,
                                    "later": plansReporting.filter { $0.reports.contains(.action("later")) }.count,
                                ])
                            #expect(final.opened > 0 && final.opened <= final.received)
                            #expect(try await push.push(id: messageID)?.state == .done)

                            // The same over HTTP, and per app: each topic's figures are its devices', and they sum
                            // to the push's.
                            let (read, shown) = try await Self.backend(http, url, .GET, "/v1/pushes/\(messageID)")
                            #expect(read == 200)
                            let figures = try #require(shown["statistics"] as? [String: Any])
                            #expect(figures["targeted"] as? Int == final.targeted)
                            #expect(figures["sent"] as? Int == final.sent)
                            #expect(figures["accepted"] as? Int == final.accepted)
                            #expect(figures["failed"] as? Int == final.failedCount)
                            #expect(figures["received"] as? Int == final.received)
                            #expect(figures["opened"] as? Int == final.opened)
                            #expect(figures["dismissed"] as? Int == final.dismissed)
                            #expect(figures["pending"] as? Int == 0)
                            var sums = (targeted: 0, accepted: 0, failed: 0)
                            var failedByReason: [String: Int] = [:]
                            for topic in Self.topics {
                                let (status, object) = try await Self.backend(
                                    http, url, .GET, "/v1/topics/\(topic)/statistics")
                                #expect(status == 200)
                                let mine = expected.filter { $0.registration.topic == topic }
                                let answered = accepted.filter { byToken[$0.token]?.registration.topic == topic }
                                #expect(object["targeted"] as? Int == mine.count, "\(topic)")
                                #expect(object["accepted"] as? Int == answered.count, "\(topic)")
                                #expect(
                                    object["sent"] as? Int == (object["accepted"] as? Int ?? -1)
                                        + (object["failed"] as? Int ?? -1))
                                sums.targeted += object["targeted"] as? Int ?? 0
                                sums.accepted += object["accepted"] as? Int ?? 0
                                sums.failed += object["failed"] as? Int ?? 0
                                for (reason, count) in object["failedByReason"] as? [String: Int] ?? [:] {
                                    failedByReason[reason, default: 0] += count
                                }
                            }
                            #expect(sums.targeted == final.targeted)
                            #expect(sums.accepted == final.accepted)
                            #expect(sums.failed == final.failedCount)
                            #expect(failedByReason == final.failed)
                            // Each topic's receipts are its own devices' reports, and they sum to the push's.
                            var receiptSums = [0, 0]
                            for topic in Self.topics {
                                let figures = try await Self.topicReceipts(http, url, topic: topic)
                                let mine = plansReporting.filter { $0.registration.topic == topic }
                                #expect(figures.received == mine.count, "\(topic)")
                                #expect(figures.opened == mine.filter { $0.reports.contains(.opened) }.count, "\(topic)")
                                receiptSums[0] += figures.received
                                receiptSums[1] += figures.opened
                            }
                            #expect(receiptSums == [final.received, final.opened])
                            // Nothing pending anywhere, and no receipt left in any queue.
                            #expect(try await storeA.pendingCounts().values.reduce(0, +) == 0)
                            for plan in plans {
                                let queue = queues.appendingPathComponent(plan.id).appendingPathComponent(
                                    "receipts.jsonl")
                                let text = (try? String(contentsOf: queue, encoding: .utf8)) ?? ""
                                #expect(text.isEmpty, "\(plan.id)'s queue: \(text)")
                            }
                            phase("checks")
                        }
                    }
                }
            }
        } catch {
            try? await http.shutdown()
            try? await offlineHTTP.shutdown()
            try? await apnsA.shutdown()
            try? await apnsB.shutdown()
            await side.stop()
            throw error
        }
        try await http.shutdown()
        try await offlineHTTP.shutdown()
        try await apnsA.shutdown()
        try await apnsB.shutdown()
        await side.stop()
        phase("shutdown")
        let phases = timing.withLock { $0.phases }
        print(
            "push end to end, \(Self.deviceCount) devices: \(phases.joined(separator: ", ")); wall \(ContinuousClock.now - wall)"
        )
    }

    /// An address nothing listens on (TCP port 1 on the loopback): connections are refused.
    static let closedPort = URL(string: "http://127.0.0.1:1")!

    /// Runs `body` for every item, at most ``concurrency`` at a time.
    static func forEach<Item: Sendable>(
        _ items: [Item], _ body: @escaping @Sendable (Item) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = items.makeIterator()
            for _ in 0..<concurrency {
                guard let item = next.next() else { break }
                group.addTask { try await body(item) }
            }
            while try await group.next() != nil {
                if let item = next.next() { group.addTask { try await body(item) } }
            }
        }
    }

    /// The `userInfo` an app's delegate gets for a payload: every key beside `aps`.
    static func userInfo(_ payload: Data) throws -> [AnyHashable: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in object where key != "aps" { userInfo[AnyHashable(key)] = value }
        return userInfo
    }

    /// A backend call with the backend's token: the status and the JSON object answered.
    static func backend(
        _ http: HTTPClient, _ url: URL, _ method: HTTPMethod, _ path: String, _ body: String? = nil
    ) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: url.absoluteString + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(ServerAPITests.token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }
}
