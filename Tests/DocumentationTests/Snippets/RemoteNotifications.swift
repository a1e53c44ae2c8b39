// The Swift samples of docs/remote-notifications.md, compiled (DocSnippetTests checks that each stands here line
// for line).
import Foundation
import NotificationEngine
import NotificationPush
import OpenUserNotifications

enum RemoteNotificationSnippets {
    static func registering(appDelegate: any RemoteNotificationDelegate) {
        let remote = RemoteNotificationRegistration.current()
        remote.delegate = appDelegate            // the app now counts as running for background pushes
        remote.registerForRemoteNotifications()  // → didRegisterForRemoteNotifications(withDeviceToken:)
    }

    static func endpoint(
        scheduler: NotificationScheduler, method: String, path: String, headers: [(name: String, value: String)],
        body: Data
    ) async -> APNsResponse {
        let gateway = PushGateway(scheduler: scheduler, deliversImmediately: false)  // the daemon's loop delivers
        let response = await gateway.handle(APNsRequest(method: method, path: path, headers: headers, body: body))
        // write response.status, response.headers (apns-id, content-type), response.body
        return response
    }
}
