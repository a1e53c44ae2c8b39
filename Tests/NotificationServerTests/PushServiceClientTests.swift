import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PushServiceClient
import Synchronization
import Testing

/// The app's side of receipts (issue 20): `PushServiceClient` queues receipts on disk, sends them to the push
/// service's `POST /v1/devices/{id}/receipts`, and keeps them while the server cannot be reached.
@Suite("Push service client: receipts queued on disk and retried", .timeLimit(.minutes(5)))
struct PushServiceClientTests {
    static let start = instant("2026-11-26T12:00:00Z")
    /// An address nothing listens on (TCP port 1 on the loopback): connections are refused.
    static let closedPort = URL(string: "http://127.0.0.1:1")!

    /// An HTTP client that reports a refused connection at once (the shared one tries to connect again until the
    /// request's 30 s timeout), shut down after `body`.
    static func withFailFastHTTPClient(_ body: (HTTPClient) async throws -> Void) async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do { try await body(client) } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// A fresh empty folder for a queue.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("push-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The `userInfo` an app's delegate gets for a push: `aps` and the message identifier beside it.
    static func userInfo(_ messageID: String) -> [AnyHashable: Any] {
        [PushServiceClient.messageIDKey: messageID, "aps": ["alert": "Sale"]]
    }

    @Test(
        "receipts made while the server is down stay queued with backoff, survive a new instance, and count once when sent"
    )
    func offlineThenOnline() async throws {
        let configuration = try await freshDatabase()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withFailFastHTTPClient { http in
            try await PostgresNotificationStore.withStore(configuration: configuration) { store in
                let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
                let scheduler = NotificationScheduler(store: store, clock: clock, presenter: NoPresenter())
                let devices = DeviceScheduler(store: store, scheduler: scheduler)
                let api = ServerAPI(devices: devices, token: ServerAPITests.token)
                let push = PushService(store: store, clock: clock)
                let phone = registration("phone", zone: "UTC")
                try await devices.register(phone)
                var content = NotificationPayload()
                content.title = "Sale"
                let message = PushMessage(target: .all, content: content, sendTime: .now, createdAt: Self.start)
                try await push.send([message])
                while try await store.fanOutNextPage(at: Self.start, cap: nil) != nil {}
                // What the app's delegate gets: the fan-out put the message identifier in the request's userInfo.
                let request = try #require(
                    try await devices.pendingRequests(forDevice: phone.id).first {
                        $0.spec.identifier == PushMessage.requestIdentifier(forMessage: message.id)
                    })
                guard case .string(let carried) = request.spec.content.userInfo[PushServiceClient.messageIDKey] else {
                    Issue.record("the device's request has no \(PushServiceClient.messageIDKey)")
                    return
                }
                #expect(carried == message.id)
                let userInfo = Self.userInfo(carried)

                // The server is down: both receipts are queued; the first call tries and fails, the second waits.
                let offline = try PushServiceClient(
                    serverURL: Self.closedPort, deviceID: phone.id, deviceToken: phone.token, queueFolder: folder,
                    clock: clock, httpClient: http)
                #expect(try await offline.handleReceiveRemoteNotification(userInfo, kind: .received))
                #expect(try await offline.handleReceiveRemoteNotification(userInfo, kind: .opened))
                #expect(try await !offline.handleReceiveRemoteNotification(["aps": ["alert": "local"]], kind: .opened))
                #expect(await offline.queuedCount == 2)
                var result = try await offline.flush()
                #expect(result == .init(sent: 0, dropped: 0, remaining: 2, retryAt: Self.start.addingTimeInterval(2)))
                clock.advance(by: 3)  // past the first delay: one more failed attempt, the delay doubles
                result = try await offline.flush()
                #expect(
                    result == .init(sent: 0, dropped: 0, remaining: 2, retryAt: Self.start.addingTimeInterval(3 + 4)))
                clock.advance(by: 1)
                #expect(try await offline.flush().retryAt == Self.start.addingTimeInterval(7))  // not yet: no attempt
                let before = try #require(try await push.statistics(id: message.id))
                #expect(before.received == 0 && before.opened == 0)

                // The app restarts with the server up: a new instance on the same folder finds and sends both.
                try await Application(router: api.router()).test(.live) { client in
                    let port = try #require(client.port)
                    let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                    let userInfo = Self.userInfo(carried)
                    let online = try PushServiceClient(
                        serverURL: url, deviceID: phone.id, deviceToken: phone.token, queueFolder: folder, clock: clock,
                        httpClient: http)
                    #expect(await online.queuedCount == 2)
                    #expect(await online.skippedQueueLines.isEmpty)
                    #expect(try await online.flush() == .init(sent: 2, dropped: 0, remaining: 0, retryAt: nil))
                    // Opened again (a second tap): the server has it already; a duplicate counts as sent.
                    try await online.handleReceiveRemoteNotification(userInfo, kind: .opened)
                    #expect(await online.queuedCount == 0)
                    try await online.handleReceiveRemoteNotification(userInfo, kind: .action("reply"))
                    #expect(await online.queuedCount == 0)
                }
                let statistics = try #require(try await push.statistics(id: message.id))
                #expect(statistics.received == 1)
                #expect(statistics.opened == 1)
                #expect(statistics.actions == ["reply": 1])
                let reopened = try PushServiceClient(
                    serverURL: Self.closedPort, deviceID: phone.id, deviceToken: phone.token, queueFolder: folder,
                    clock: clock, httpClient: http)
                #expect(await reopened.queuedCount == 0)
            }
        }
    }

    @Test("429 and 503 keep receipts queued; 400 and unknown messages drop them; 401 waits for registration")
    func answers() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withFailFastHTTPClient { http in
            let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
            // A server answering what the test says, counting the receipts it got.
            let answer = Mutex<(status: HTTPResponse.Status, body: String)>((.tooManyRequests, "{}"))
            let received = Mutex(0)
            let router = Router()
            router.post("/v1/devices/:id/receipts") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
                received.withLock { $0 += (object?["receipts"] as? [Any])?.count ?? 0 }
                let (status, json) = answer.withLock { $0 }
                return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: json)))
            }
            try await Application(router: router).test(.live) { client in
                let port = try #require(client.port)
                let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                let app = try PushServiceClient(
                    serverURL: url, deviceID: "phone", deviceToken: "ab", queueFolder: folder, clock: clock,
                    httpClient: http)
                var delay: TimeInterval = 2
                for status in [HTTPResponse.Status.tooManyRequests, .serviceUnavailable, .unauthorized] {
                    answer.withLock { $0 = (status, #"{"reason":"x"}"#) }
                    let result = try await app.flushAfter(report: "m1", clock: clock)
                    #expect(result.remaining == 1 && result.sent == 0 && result.dropped == 0, "\(status)")
                    #expect(result.retryAt == clock.now.addingTimeInterval(delay), "\(status)")
                    clock.advance(by: delay)
                    delay *= 2
                }
                answer.withLock { $0 = (.badRequest, #"{"reason":"BadRequest","detail":"no"}"#) }
                #expect(try await app.flush() == .init(sent: 0, dropped: 1, remaining: 0, retryAt: nil))
                answer.withLock { $0 = (.ok, #"{"recorded":1,"duplicates":0,"unknownMessages":["gone"]}"#) }
                try await app.report(messageID: "gone", kind: .dismissed)
                #expect(await app.queuedCount == 0)
                #expect(received.withLock { $0 } == 4 + 1)
            }
        }
    }

    @Test("a refused batch is sent again one receipt at a time; 20 calls at once send each receipt exactly once")
    func batchesAndConcurrentCalls() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
        // A server refusing (400) any request with a receipt for `bad`, answering `status` otherwise, and keeping the
        // message identifiers of the receipts it answered 200.
        let status = Mutex(HTTPResponse.Status.serviceUnavailable)
        let accepted = Mutex<[String]>([])
        let router = Router()
        router.post("/v1/devices/:id/receipts") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
            let ids = (object?["receipts"] as? [[String: Any]] ?? []).compactMap { $0["messageId"] as? String }
            let answer: HTTPResponse.Status = ids.contains("bad") ? .badRequest : status.withLock { $0 }
            if answer == .ok { accepted.withLock { $0 += ids } }
            return Response(status: answer, body: .init(byteBuffer: ByteBuffer(string: #"{"reason":"x"}"#)))
        }
        try await Application(router: router).test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let app = try PushServiceClient(
                serverURL: url, deviceID: "phone", deviceToken: "ab", queueFolder: folder, clock: clock)
            for id in ["a", "bad", "c"] { try await app.report(messageID: id, kind: .opened) }
            #expect(await app.queuedCount == 3)
            status.withLock { $0 = .ok }
            clock.advance(by: 2)
            #expect(try await app.flush() == .init(sent: 2, dropped: 1, remaining: 0, retryAt: nil))
            #expect(accepted.withLock { $0 } == ["a", "c"])

            accepted.withLock { $0 = [] }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask { try await app.report(messageID: "p\(index)", kind: .received) }
                }
                try await group.waitForAll()
            }
            #expect(await app.queuedCount == 0)
            #expect(accepted.withLock { $0 }.sorted() == (0..<20).map { "p\($0)" }.sorted())
        }
    }

    @Test(
        "a device binds its own account, aliases and tags with its token; another device's token, backend routes, limits and names are refused and change nothing"
    )
    func bindingFromTheApp() async throws {
        let configuration = try await freshDatabase()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withFailFastHTTPClient { http in
            try await PostgresNotificationStore.withStore(configuration: configuration) { store in
                let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
                let scheduler = NotificationScheduler(store: store, clock: clock, presenter: NoPresenter())
                let devices = DeviceScheduler(store: store, scheduler: scheduler)
                let api = ServerAPI(devices: devices, token: ServerAPITests.token)
                let push = PushService(store: store, clock: clock)
                let phone = registration("phone 1/a", zone: "UTC")  // a space and a slash: percent-encoded
                let tablet = registration("tablet", zone: "UTC")
                try await devices.register(phone)
                try await devices.register(tablet)
                try await Application(router: api.router()).test(.live) { client in
                    let port = try #require(client.port)
                    let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                    func app(_ id: String, _ token: String) throws -> PushServiceClient {
                        try PushServiceClient(
                            serverURL: url, deviceID: id, deviceToken: token, queueFolder: folder, clock: clock,
                            httpClient: http)
                    }
                    let mine = try app(phone.id, phone.token)
                    #expect(try await mine.audience() == .init(device: phone.id, account: nil, aliases: [], tags: []))
                    #expect(try await mine.bindAccount("alice").account == "alice")
                    #expect(try await mine.bindAliases(["alice", "alice@work", "a b/c"]).aliases.count == 3)
                    #expect(try await mine.unbindAlias("a b/c").aliases.sorted() == ["alice", "alice@work"])
                    #expect(try await mine.bindTags(["news", "sports", "weather"]).tags.count == 3)
                    #expect(try await mine.unbindTag("weather").tags.sorted() == ["news", "sports"])
                    #expect(try await mine.unbindTag("never-had").tags.count == 2)  // not an error
                    let bound = try await mine.audience()
                    #expect(bound.account == "alice")
                    #expect(bound.aliases.sorted() == ["alice", "alice@work"])
                    #expect(bound.tags.sorted() == ["news", "sports"])
                    // The server holds what the client was told; the token in capitals is the same token.
                    let held = try await push.audience(deviceID: phone.id)
                    #expect(held.account == "alice" && held.aliases.sorted() == bound.aliases.sorted())
                    #expect(held.tags.sorted() == bound.tags.sorted())
                    #expect(try await app(phone.id, phone.token.uppercased()).audience().tags.count == 2)
                    #expect(try await mine.unbindAccount().account == nil)
                    #expect(try await mine.bindAccount("alice").account == "alice")

                    /// The error a call throws.
                    func refusal(_ call: () async throws -> PushServiceClient.Audience) async -> PushServiceClientError?
                    {
                        do {
                            _ = try await call()
                            return nil
                        } catch { return error as? PushServiceClientError }
                    }
                    // Limits and names: 400 with the server's reason.
                    let tooMany = await refusal { try await mine.bindTags((0..<127).map { "t\($0)" }) }
                    #expect(
                        tooMany?.status == 400 && tooMany?.reason == "TooManyTags", "\(String(describing: tooMany))")
                    let aliases = await refusal { try await mine.bindAliases((0..<127).map { "a\($0)" }) }
                    #expect(aliases?.status == 400 && aliases?.reason == "TooManyAliases")
                    let long = await refusal { try await mine.bindAccount(String(repeating: "x", count: 129)) }
                    #expect(long?.status == 400 && long?.reason == "InvalidName")
                    let control = await refusal { try await mine.bindTags(["a\nb"]) }
                    #expect(control?.status == 400 && control?.reason == "InvalidName")
                    // An empty name to unbind never reaches the server.
                    let empty = await refusal { try await mine.unbindTag("") }
                    #expect(empty != nil && empty?.status == nil && empty?.isUnreachable == false)
                    // Another device's token for this device, and a token for a device nobody registered: 401.
                    let stolen = try app(phone.id, tablet.token)
                    for call in [
                        { try await stolen.bindTags(["evil"]) }, { try await stolen.unbindAccount() },
                        { try await stolen.unbindAlias("alice") }, { try await stolen.audience() },
                    ] as [() async throws -> PushServiceClient.Audience] {
                        let error = await refusal(call)
                        #expect(error?.status == 401 && error?.reason == "Unauthorized")
                    }
                    let ghost = await refusal { try await app("ghost", phone.token).bindTags(["x"]) }
                    #expect(ghost?.status == 401)
                    // Offline: a transport error, nothing sent.
                    let offline = try PushServiceClient(
                        serverURL: Self.closedPort, deviceID: phone.id, deviceToken: phone.token, queueFolder: folder,
                        clock: clock, httpClient: http)
                    let unreachable = await refusal { try await offline.bindTags(["offline"]) }
                    #expect(unreachable?.isUnreachable == true && unreachable?.status == nil)

                    // Routes that span devices take the backend's token only: the device's own token is 401 there.
                    for (method, path, body) in [
                        (HTTPMethod.GET, "/v1/accounts/alice/devices", nil),
                        (.GET, "/v1/aliases/alice/devices", nil),
                        (.POST, "/v1/device-checks", #"{"devices":["tablet"]}"#),
                        (.POST, "/v1/audience-counts", #"{"tag":{"tag":"news"}}"#),
                        (.POST, "/v1/pushes", #"{"target":{"all":true},"title":"spam"}"#),
                        (.GET, "/v1/devices/tablet/audience", nil),
                        (.POST, "/v1/devices/tablet/tags", #"{"tags":["evil"]}"#),
                        (.PUT, "/v1/devices/phone%201%2Fa", #"{"token":"\#(phone.token)","topic":"x"}"#),
                    ] as [(HTTPMethod, String, String?)] {
                        var request = HTTPClientRequest(url: url.absoluteString + path)
                        request.method = method
                        request.headers.add(name: "Authorization", value: "Bearer \(phone.token)")
                        if let body { request.body = .bytes(ByteBuffer(string: body)) }
                        let response = try await http.execute(request, timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 16)
                        #expect(response.status == .unauthorized, "\(method) \(path)")
                    }
                    // Nothing changed on any refusal: the phone's audience is as bound, the tablet's empty, no push.
                    #expect(try await mine.audience() == bound)
                    let tabletAudience = try await push.audience(deviceID: tablet.id)
                    #expect(tabletAudience.account == nil && tabletAudience.tags.isEmpty)
                    #expect(try await store.newestPushIDs(limit: 10).isEmpty)
                    #expect(try await store.device(id: phone.id)?.topic == phone.topic)
                }
            }
        }
    }

    @Test("a corrupt queue line is skipped and reported, and left out of the next rewrite")
    func corruptLine() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withFailFastHTTPClient { http in
            let file = folder.appendingPathComponent("receipts.jsonl")
            let good = #"{"at":"2026-11-26T12:00:00Z","kind":"opened","messageId":"m1"}"#
            try Data(
                (good + "\n" + #"{"at":"2026-11-26T12:00:01Z","kind":"ope"# + "\n"
                    + #"{"at":"2026-11-26T12:00:00Z","kind":"clicked","messageId":"m2"}"# + "\n\n").utf8
            ).write(to: file)
            let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
            let client = try PushServiceClient(
                serverURL: Self.closedPort, deviceID: "phone", deviceToken: "ab", queueFolder: folder, clock: clock,
                httpClient: http)
            #expect(await client.queuedCount == 1)
            #expect(await client.skippedQueueLines.map(\.number) == [2, 3])
            try await client.report(messageID: "m3", kind: .action("later"))
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.first.map(String.init) == good)
            #expect(lines.last?.contains(#""action":"later""#) == true)
            await #expect(throws: PushServiceClientError.self) {
                try await client.report(messageID: "m4", kind: .action(""))
            }
        }
    }
}

extension PushServiceClient {
    /// Reports one receipt for `messageID` when the queue is empty, or flushes; returns what the flush did.
    fileprivate func flushAfter(report messageID: String, clock: ManualNotificationClock) async throws -> FlushResult {
        if queuedCount == 0 { try await report(messageID: messageID, kind: .opened) }
        return try await flush()
    }
}
