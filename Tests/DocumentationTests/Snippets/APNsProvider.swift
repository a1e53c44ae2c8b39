// The Swift samples of docs/apns-provider.md, compiled (DocSnippetTests checks that each stands here line for line).
import Foundation
import NotificationAPNsProvider

enum APNsProviderSnippets {
    static func sending(deviceToken: String) async throws {
        let key = try APNsSigningKey(p8File: "/etc/unotify/AuthKey_ABC123DEFG.p8", teamID: "DEF123GHIJ")
        let client = try APNsClient(configuration: APNsClientConfiguration(server: .production), key: key)
        let notification = APNsNotification(
            deviceToken: deviceToken, topic: "com.example.app", pushType: .alert, priority: .immediate,
            collapseID: "score", payload: Data(#"{"aps":{"alert":{"title":"Goal!","body":"2-1"}}}"#.utf8))
        let delivery = try await client.send(notification)
        switch delivery.outcome {
        case .delivered(let uniqueID):
            print("delivered \(delivery.apnsID) after \(delivery.attempts) attempt(s)", uniqueID ?? "")
        case .deviceGone(let reason, let since):
            print("stop sending to this device: \(reason), since \(since.map { "\($0)" } ?? "unknown")")
        case .rejected(let answer):
            print("dead letter: \(answer)")  // e.g. "400 BadDeviceToken"
        case .gaveUp(let answer):
            print("APNs kept refusing or could not be reached: \(answer)")
        }
        try await client.shutdown()
    }

    static func local() throws -> APNsClient {
        var configuration = APNsClientConfiguration(server: APNsServer(host: "127.0.0.1", port: 2197))
        configuration.trustRoots(pemFile: "cert.pem")
        let localKey = try APNsSigningKey(p8File: "AuthKey_ABC123DEFG.p8", teamID: "DEF123GHIJ")
        let localClient = try APNsClient(configuration: configuration, key: localKey)
        return localClient
    }
}
