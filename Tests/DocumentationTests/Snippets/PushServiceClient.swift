// The Swift samples of docs/push-service.md, compiled (DocSnippetTests checks that each stands here line for line).
import Foundation
import PushServiceClient

enum PushServiceClientSnippets {
    static func receipts(deviceToken: String, userInfo: [AnyHashable: Any], actionIdentifier: String) async throws {
        let client = try PushServiceClient(
            serverURL: URL(string: "https://push.example.com")!, deviceID: "phone-1", deviceToken: deviceToken,
            queueFolder: URL(fileURLWithPath: "/var/lib/example-app/receipts"))
        // In userNotificationCenter(_:didReceive:withCompletionHandler:):
        try await client.handleReceiveRemoteNotification(userInfo, kind: .init(actionIdentifier: actionIdentifier))
        // When the app comes to the foreground:
        try await client.flush()
    }

    static func binding(client: PushServiceClient) async throws {
        let audience = try await client.bindTags(["news", "sports"])
        _ = try await client.bindAccount("alice")
        _ = try await client.unbindTag("sports")
        print(audience.tags, try await client.audience().account ?? "no account")
    }
}
