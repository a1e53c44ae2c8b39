import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import Testing

/// The order of the pushes of one batch, as `RequestAnswerer.answer(batch:)` runs it.
@Suite("Provider requests: a batch keeps arrival order")
struct GatewayBatchOrderTests {
    @Test("a mutable-content push that arrived first does not replace a later push with its collapse id")
    func leftOutPushKeepsArrivalOrder() async throws {
        let system = try makeSystem()
        _ = try await system.center(for: "com.example.gw")
        let token = try await system.scheduler.registerForRemoteNotifications(appID: "com.example.gw").token
        let gateway = PushGateway(scheduler: system.scheduler)
        let device = "/3/device/\(token.hex)"
        let requests = [
            APNsRequest(
                path: device, headers: [("apns-collapse-id", "score")],
                body: Data(#"{"aps":{"alert":"1 : 0","mutable-content":1}}"#.utf8)),
            APNsRequest(path: device, headers: [("apns-collapse-id", "score")], body: Data(#"{"aps":{"alert":"2 : 0"}}"#.utf8)),
        ]
        // What RequestAnswerer.answer(batch:) does: the batch, then (in a task started once the batch responder
        // returned) each request it left out, on its own.
        let responses = await gateway.handle(batch: requests)
        for (index, response) in responses.enumerated() where response == nil { _ = await gateway.handle(requests[index]) }
        let delivered = try await system.scheduler.deliveredNotifications(appID: "com.example.gw")
        let match = try #require(delivered.first { $0.identifier == "score" })
        #expect(match.request.content.body == "2 : 0", "the older push, arrived first, replaced the newer")
    }
}
