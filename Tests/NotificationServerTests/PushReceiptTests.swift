import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import Testing

/// The push service's receipts (issue 20): devices report received, opened, dismissed and actions over HTTP with
/// their own token, once per device, message and kind, and the push's statistics count them.
@Suite("Push service: receipts from devices", .timeLimit(.minutes(5)))
struct PushReceiptTests {
    static let start = instant("2026-11-26T12:00:00Z")

    /// Sends receipts for `device` with `token` as its credential.
    static func report(
        _ client: any TestClientProtocol, device: String, token: String?, _ json: String
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await ServerAPITests.send(
            client, .post, "/v1/devices/\(device)/receipts", json, authorization: token.map { "Bearer \($0)" })
    }

    @Test(
        "20 devices report receipts, some twice (a retry): each counts once, opened implies received, actions by name")
    func receipts() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: NoPresenter())
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            let api = ServerAPI(devices: devices, token: ServerAPITests.token)
            let push = PushService(store: store, clock: clock)
            var tokens: [String: String] = [:]
            for index in 0..<20 {
                let device = registration("r\(index)", zone: "UTC")
                try await devices.register(device)
                tokens[device.id] = device.token
            }
            var content = NotificationPayload()
            content.title = "Sale"
            let message = PushMessage(target: .all, content: content, sendTime: .now, createdAt: Self.start)
            try await push.send([message])
            while try await store.fanOutNextPage(at: Self.start, cap: nil) != nil {}
            let id = message.id
            let knownTokens = tokens
            try await Application(router: api.router()).test(.router) { client in
                // r0-r9 received; r0-r5 opened (r6-r9 only received); r10-r11 opened without a received receipt
                // (the app was not running); r12 dismissed; r13-r14 chose action1, r15 action2; r16 reports opened
                // twice and received in one call; r17-r19 nothing.
                for index in 0..<10 {
                    let (status, answer) = try await Self.report(
                        client, device: "r\(index)", token: knownTokens["r\(index)"],
                        #"{"receipts":[{"messageId":"\#(id)","kind":"received","at":"2026-11-26T12:00:05Z"}]}"#)
                    #expect(status == .ok && answer["recorded"] as? Int == 1)
                }
                for index in [0, 1, 2, 3, 4, 5, 10, 11] {
                    // r10 and r11 opened it an hour later (12:00 is the clock's time, the default).
                    let at = index >= 10 ? #","at":"2026-11-26T13:20:00Z""# : ""
                    _ = try await Self.report(
                        client, device: "r\(index)", token: knownTokens["r\(index)"]?.uppercased(),
                        #"{"receipts":[{"messageId":"\#(id)","kind":"opened"\#(at)}]}"#)
                }
                _ = try await Self.report(
                    client, device: "r12", token: knownTokens["r12"],
                    #"{"receipts":[{"messageId":"\#(id)","kind":"dismissed"}]}"#)
                for (index, action) in [(13, "action1"), (14, "action1"), (15, "action2")] {
                    _ = try await Self.report(
                        client, device: "r\(index)", token: knownTokens["r\(index)"],
                        #"{"receipts":[{"messageId":"\#(id)","kind":"action","action":"\#(action)"}]}"#)
                }
                // A retry of r0's receipts after a lost answer, with an unknown message beside them.
                let (retried, answer) = try await Self.report(
                    client, device: "r0", token: knownTokens["r0"],
                    #"{"receipts":[{"messageId":"\#(id)","kind":"received"},{"messageId":"\#(id)","kind":"opened"},{"messageId":"nope","kind":"opened"}]}"#
                )
                #expect(retried == .ok)
                #expect(answer["recorded"] as? Int == 0)
                #expect(answer["duplicates"] as? Int == 2)
                #expect(answer["unknownMessages"] as? [String] == ["nope"])
                // The same receipt twice in one call, and a "received" after the "opened" that implies it: one of
                // each kind is recorded, the rest are duplicates.
                let (twice, counted) = try await Self.report(
                    client, device: "r16", token: knownTokens["r16"],
                    #"{"receipts":[{"messageId":"\#(id)","kind":"opened"},{"messageId":"\#(id)","kind":"opened"},{"messageId":"\#(id)","kind":"received"}]}"#
                )
                #expect(twice == .ok)
                #expect(counted["recorded"] as? Int == 2, "\(counted)")
                #expect(counted["duplicates"] as? Int == 1, "\(counted)")

                let statistics = try #require(try await push.statistics(id: id))
                #expect(statistics.opened == 9)
                #expect(statistics.received == 17)  // r0-r16: every opened, dismissed or action implies received
                #expect(statistics.dismissed == 1)
                #expect(statistics.actions == ["action1": 2, "action2": 1])
                #expect(
                    statistics.byHour == [
                        PushStatistics.Hour(start: Self.start, received: 15, opened: 7),
                        PushStatistics.Hour(start: instant("2026-11-26T13:00:00Z"), received: 2, opened: 2),
                    ])
                #expect(statistics.opened <= statistics.received)
                let (_, shown) = try await ServerAPITests.send(client, .get, "/v1/pushes/\(id)")
                let figures = try #require(shown["statistics"] as? [String: Any])
                #expect(figures["received"] as? Int == 17 && figures["opened"] as? Int == 9)
                #expect(figures["actions"] as? [String: Int] == ["action1": 2, "action2": 1])

                // One push to one topic's devices: the topic's receipts and hours are the push's.
                let topic = try await push.statistics(topic: registration("x", zone: "UTC").topic)
                #expect(topic.received == 17 && topic.opened == 9 && topic.dismissed == 1)
                #expect(topic.actions == statistics.actions && topic.byHour == statistics.byHour)
                let (_, topicShown) = try await ServerAPITests.send(
                    client, .get, "/v1/topics/\(registration("x", zone: "UTC").topic)/statistics")
                #expect(topicShown["received"] as? Int == 17 && topicShown["opened"] as? Int == 9)
                #expect((topicShown["byHour"] as? [[String: Any]])?.count == 2)
            }
        }
    }

    @Test("a receipt needs the device's own token; bad receipts are refused with a reason and store nothing")
    func refusals() async throws {
        let configuration = try await freshDatabase()
        try await PostgresNotificationStore.withStore(configuration: configuration) { store in
            let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
            let scheduler = NotificationScheduler(store: store, clock: clock, presenter: NoPresenter())
            let devices = DeviceScheduler(store: store, scheduler: scheduler)
            let api = ServerAPI(devices: devices, token: ServerAPITests.token)
            let push = PushService(store: store, clock: clock)
            let phone = registration("phone", zone: "UTC")
            let other = registration("other", zone: "UTC")
            try await devices.register(phone)
            try await devices.register(other)
            var content = NotificationPayload()
            content.title = "t"
            let message = PushMessage(target: .all, content: content, sendTime: .now, createdAt: Self.start)
            try await push.send([message])
            let good = #"{"receipts":[{"messageId":"\#(message.id)","kind":"opened"}]}"#
            try await Application(router: api.router()).test(.router) { client in
                for (device, token) in [
                    ("phone", nil), ("phone", other.token), ("phone", ServerAPITests.token), ("ghost", phone.token),
                ] as [(String, String?)] {
                    let (status, answer) = try await Self.report(client, device: device, token: token, good)
                    #expect(status == .unauthorized, "\(device) \(token ?? "none")")
                    #expect(answer["reason"] as? String == "Unauthorized")
                }
                let many = (0..<101).map { _ in #"{"messageId":"\#(message.id)","kind":"received"}"# }
                for (body, reason) in [
                    (#"{"receipts":[{"messageId":"\#(message.id)","kind":"clicked"}]}"#, "BadRequest"),
                    (#"{"receipts":[{"messageId":"\#(message.id)","kind":"action"}]}"#, "BadRequest"),
                    (#"{"receipts":[{"messageId":"\#(message.id)","kind":"opened","action":"a"}]}"#, "BadRequest"),
                    (#"{"receipts":[{"messageId":"\#(message.id)","kind":"opened","at":"noon"}]}"#, "BadRequest"),
                    (#"{"receipts":[]}"#, "BadRequest"),
                    (#"{"receipts":[\#(many.joined(separator: ","))]}"#, "InvalidPush"),
                ] {
                    let (status, answer) = try await Self.report(client, device: "phone", token: phone.token, body)
                    #expect(status == .badRequest, "\(body.prefix(80))")
                    #expect(answer["reason"] as? String == reason, "\(body.prefix(80))")
                }
                let statistics = try #require(try await push.statistics(id: message.id))
                #expect(statistics.received == 0 && statistics.opened == 0)
            }
        }
    }
}
