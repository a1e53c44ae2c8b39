// The Swift samples of README.md, compiled (DocSnippetTests checks that each stands here line for line).
import Foundation
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

enum ReadmeSnippets {
    /// "Using the library".
    static func usingTheLibrary() async throws {
        let center = UNUserNotificationCenter.current()
        _ = try await center.requestAuthorization(options: [.alert, .sound, .badge])

        let content = UNMutableNotificationContent()
        content.title = "Stand-up"
        content.body = "In 5 minutes, room 2"
        content.sound = .default

        var morning = DateComponents()
        morning.hour = 9
        morning.minute = 55
        let trigger = UNCalendarNotificationTrigger(dateMatching: morning, repeats: true)
        try await center.add(UNNotificationRequest(identifier: "standup", content: content, trigger: trigger))
    }

    /// "Using the library": many requests at once.
    static func batch(center: UNUserNotificationCenter) async throws {
        let reminders = (1...30).map { day in
            let content = UNMutableNotificationContent()
            content.title = "Day \(day) of the course"
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: Double(day) * 86_400, repeats: false)
            return UNNotificationRequest(identifier: "course-\(day)", content: content, trigger: trigger)
        }
        let result = try await center.add(contentsOf: reminders)  // one transaction: all 30, or none
        print(result.added, result.discarded)
    }

    /// "Testing your notification logic".
    static func testingYourNotificationLogic(request: UNNotificationRequest) async throws {
        let system = try NotificationTestSystem()                 // manual clock, in-memory store, recording presenter
        let center = try await system.center(for: "com.example.app")
        try await center.add(request)                             // a 60 s time-interval trigger
        await system.advance(by: 60)                              // moves the clock, delivers what fell due
        #expect(system.presenter.presentations.map(\.identifier) == ["tea"])
        try await system.respond(to: "tea", app: "com.example.app", actionIdentifier: "done")   // as a user would
    }
}
