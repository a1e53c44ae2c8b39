import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import Testing

@Suite("Provider requests")
struct GatewayTests {
    static let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)

    @Test(
        "every error case answers as APNs would",
        arguments: [
            (APNsRequest(method: "GET", path: "/3/device/T", body: body), APNsReason.methodNotAllowed),
            (APNsRequest(path: "/2/device/T", body: body), .badPath),
            (APNsRequest(path: "/3/device/", body: body), .missingDeviceToken),
            (APNsRequest(path: "/3/device/1234", body: body), .badDeviceToken),
            (APNsRequest(path: "/3/device/T", headers: [("apns-topic", "a"), ("APNS-Topic", "b")], body: body), .duplicateHeaders),
            (APNsRequest(path: "/3/device/T", headers: [("apns-id", "42")], body: body), .badMessageId),
            (APNsRequest(path: "/3/device/T", headers: [("apns-push-type", "fax")], body: body), .invalidPushType),
            (APNsRequest(path: "/3/device/T", headers: [("apns-priority", "7")], body: body), .badPriority),
            (
                APNsRequest(path: "/3/device/T", headers: [("apns-push-type", "background"), ("apns-priority", "10")], body: body),
                .badPriority
            ),
            (APNsRequest(path: "/3/device/T", headers: [("apns-expiration", "soon")], body: body), .badExpirationDate),
            (APNsRequest(path: "/3/device/T", headers: [("apns-topic", "")], body: body), .badTopic),
            (APNsRequest(path: "/3/device/T", headers: [("apns-topic", "com.example.gw\t")], body: body), .badTopic),
            (APNsRequest(path: "/3/device/T", headers: [("apns-topic", "com.é\u{2003}gw")], body: body), .badTopic),
            (APNsRequest(path: "/3/device/T", headers: [("Apns-Push-Type", "fax")], body: body), .invalidPushType),
            (
                APNsRequest(path: "/3/device/T", headers: [("apns-collapse-id", String(repeating: "x", count: 65))], body: body),
                .badCollapseId
            ),
            (APNsRequest(path: "/3/device/T", body: Data()), .payloadEmpty),
            (APNsRequest(path: "/3/device/T", body: Data("{".utf8)), .payloadEmpty),
            (APNsRequest(path: "/3/device/T", body: Data(repeating: 32, count: 4097)), .payloadTooLarge),
            (APNsRequest(path: "/3/device/T", headers: [("apns-topic", "com.example.other")], body: body), .deviceTokenNotForTopic),
            (APNsRequest(path: "/3/device/U", body: body), .badDeviceToken),
        ] as [(APNsRequest, APNsReason)])
    func errors(request: APNsRequest, expected: APNsReason) async throws {
        let system = try makeSystem()
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        var request = request
        request.path = request.path.replacingOccurrences(of: "device/T", with: "device/\(token.hex)")
            .replacingOccurrences(of: "device/U", with: "device/\(DeviceToken.random().hex)")
        let response = await PushGateway(scheduler: system.scheduler).handle(request)
        #expect(response.reason == expected)
        #expect(response.status == expected.status)
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json["reason"] as? String == expected.reason)
        #expect(response.headers.first?.name == "apns-id")
        #expect(system.presenter.presentations.isEmpty)
    }

    @Test("a valid request answers 200 with its apns-id and delivers; VoIP topics and payloads up to 5120 bytes")
    func success() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.gw")
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        let gateway = PushGateway(scheduler: system.scheduler)
        let id = "123E4567-E89B-12D3-A456-426614174000"
        let response = await gateway.handle(
            APNsRequest(
                path: "/3/device/\(token.hex)",
                headers: [("apns-id", id), ("apns-topic", "com.example.gw"), ("apns-push-type", "alert"), ("apns-priority", "10")],
                body: Self.body))
        #expect(response.status == 200 && response.body.isEmpty)
        #expect(response.apnsID == id.lowercased())
        #expect(system.presenter.presentations.map(\.body) == ["Hi"])

        let pad = String(repeating: "v", count: 5000)
        let voip = await gateway.handle(
            APNsRequest(
                path: "/3/device/\(token.hex)", headers: [("apns-topic", "com.example.gw.voip"), ("apns-push-type", "voip")],
                body: Data(#"{"aps":{"alert":"Call"},"pad":"\#(pad)"}"#.utf8)))
        #expect(voip.status == 200)
        let tooBig = await gateway.handle(
            APNsRequest(path: "/3/device/\(token.hex)", body: Data(#"{"aps":{"alert":"Call"},"pad":"\#(pad)"}"#.utf8)))
        #expect(tooBig.reason == .payloadTooLarge && tooBig.status == 413)
    }

    @Test("a batch answers each push as alone: good ones 200 and shown, a bad token or payload its error and apns-id")
    func batch() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.gw")
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        let gateway = PushGateway(scheduler: system.scheduler)
        let ids = (0..<5).map { _ in UUID().uuidString.lowercased() }
        let device = "/3/device/\(token.hex)"
        let requests = [
            APNsRequest(path: device, headers: [("apns-id", ids[0])], body: Data(#"{"aps":{"alert":"One"}}"#.utf8)),
            APNsRequest(path: "/3/device/\(DeviceToken.random().hex)", headers: [("apns-id", ids[1])], body: Self.body),
            APNsRequest(path: device, headers: [("apns-id", ids[2])], body: Data("{".utf8)),
            APNsRequest(path: device, headers: [("apns-id", ids[3]), ("apns-topic", "com.example.other")], body: Self.body),
            APNsRequest(path: device, headers: [("apns-id", ids[4])], body: Data(#"{"aps":{"alert":"Two"}}"#.utf8)),
        ]
        let answered = await gateway.handle(batch: requests)
        let responses = answered.compactMap { $0 }
        try #require(responses.count == requests.count)
        #expect(responses.map(\.status) == [200, 400, 400, 400, 200])
        #expect(responses.map(\.apnsID) == ids)
        #expect(responses.map(\.reason) == [nil, .badDeviceToken, .payloadEmpty, .deviceTokenNotForTopic, nil])
        #expect(system.presenter.presentations.map(\.body) == ["One", "Two"])
        // The refused ones answer as they do one by one.
        for index in [1, 2, 3] {
            let alone = await gateway.handle(requests[index])
            #expect(alone.reason == responses[index].reason && alone.apnsID == ids[index])
        }
        #expect(await gateway.handle(batch: []).isEmpty)
    }

    @Test("a batch leaves out the pushes that ask the running app (background, content-available), unasked")
    func batchLeavesOutAppPushes() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.gw")
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        let receiver = RecordingReceiver()
        await system.scheduler.attachRemoteReceiver(receiver, appID: "com.example.gw")
        let gateway = PushGateway(scheduler: system.scheduler)
        let device = "/3/device/\(token.hex)"
        let requests = [
            APNsRequest(path: device, body: Data(#"{"aps":{"alert":"One"}}"#.utf8)),
            APNsRequest(path: device, body: Data(#"{"aps":{"alert":"Fetch","content-available":1}}"#.utf8)),
            APNsRequest(
                path: device, headers: [("apns-push-type", "background"), ("apns-priority", "5")],
                body: Data(#"{"aps":{"content-available":1},"feed":"b"}"#.utf8)),
            APNsRequest(path: device, body: Data(#"{"aps":{"alert":"Edit","mutable-content":1}}"#.utf8)),
            APNsRequest(path: device, body: Data(#"{"aps":{"alert":"Two"}}"#.utf8)),
        ]
        let responses = await gateway.handle(batch: requests)
        #expect(responses.map { $0?.status } == [200, nil, nil, 200, 200])
        #expect(receiver.count == 0)
        #expect(Set(system.presenter.presentations.map(\.body)) == ["One", "Edit", "Two"])
        // Answered on their own, as the endpoint does with what a batch leaves out, they reach the app.
        #expect(await gateway.handle(requests[1]).status == 200)
        #expect(await gateway.handle(requests[2]).status == 200)
        #expect(receiver.count == 2)
    }

    @Test("an unregistered token answers 410 Unregistered with the time in milliseconds")
    func unregistered() async throws {
        let system = try makeSystem()
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        try await system.scheduler.unregisterForRemoteNotifications(appID: "com.example.gw")
        let response = await PushGateway(scheduler: system.scheduler).handle(APNsRequest(path: "/3/device/\(token.hex)", body: Self.body))
        #expect(response.status == 410)
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json["reason"] as? String == "Unregistered")
        #expect((json["timestamp"] as? NSNumber)?.int64Value == Int64(system.clock.now.timeIntervalSince1970 * 1000))
    }

    @Test("a background push through the gateway is not shown")
    func backgroundThroughGateway() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.gw")
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        let response = await PushGateway(scheduler: system.scheduler).handle(
            APNsRequest(
                path: "/3/device/\(token.hex)", headers: [("apns-push-type", "background"), ("apns-priority", "5")],
                body: Data(Fixtures.backgroundRefresh.utf8)))
        #expect(response.status == 200)
        #expect(system.presenter.presentations.isEmpty)
        #expect(try await system.scheduler.store.queuedBackgroundPushes(appID: "com.example.gw").count == 1)
    }
}

/// Development and production tokens, and the endpoints that take them.
@Suite("APNs environments")
struct EnvironmentTests {
    static let body = Data(#"{"aps":{"alert":"Hi"}}"#.utf8)

    @Test("each environment issues its own token; the other environment's endpoint answers 400 BadDeviceToken")
    func mixUp() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.gw")
        let store = system.scheduler.store
        let development = try await store.registerForRemoteNotifications(appID: "com.example.gw", at: Date(), bundleDirectory: nil)
        let production = try await store.registerForRemoteNotifications(
            appID: "com.example.gw", at: Date(), bundleDirectory: nil, environment: .production)
        #expect(development.environment == .development && production.environment == .production)
        #expect(development.token != production.token)
        // Asking again gives the same token per environment.
        #expect(try await store.registerForRemoteNotifications(appID: "com.example.gw", at: Date(), bundleDirectory: nil).token == development.token)

        func push(_ token: DeviceToken, to environment: PushEnvironment) async -> APNsResponse {
            await PushGateway(scheduler: system.scheduler, environment: environment).handle(
                APNsRequest(path: "/3/device/\(token.hex)", headers: [("apns-topic", "com.example.gw")], body: Self.body))
        }
        #expect(await push(production.token, to: .development).reason == .badDeviceToken)
        #expect(await push(development.token, to: .production).reason == .badDeviceToken)
        #expect(system.presenter.presentations.isEmpty)
        #expect(await push(development.token, to: .development).status == 200)
        #expect(await push(production.token, to: .production).status == 200)
        #expect(system.presenter.presentations.count == 2)

        // Unregistering one environment leaves the other's token working.
        try await store.unregisterForRemoteNotifications(appID: "com.example.gw", at: Date(), environment: .production)
        #expect(await push(production.token, to: .production).reason == .unregistered)
        #expect(await push(development.token, to: .development).status == 200)
    }

    @Test("a registration stored before environments existed is a development one")
    func storedBefore() throws {
        let old = #"{"appID":"com.example.old","token":"\#(String(repeating: "ab", count: 32))","registeredAt":0}"#
        let registration = try JSONDecoder().decode(PushRegistration.self, from: Data(old.utf8))
        #expect(registration.environment == .development && registration.isActive)
    }
}
