import DBusKit
import Foundation
import NotificationDesktop
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// An app with an Info.plist (name and icon file) adds a request through the API, in both modes; dunst's history
/// shows the app's readable name as `app_name` and its icon file as the icon.
@Suite("App name and icon through dunst", .enabled(if: PrivateDesktop.isAvailable), .timeLimit(.minutes(1)))
struct AppIconDunstTests {
    static let icon = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Images/sunrise.png")

    @Test("CFBundleDisplayName and CFBundleIconFile on the notification server", arguments: NotificationTestSystem.Mode.allCases)
    func infoPlistOnDunst(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AppAppearanceTests.bundle(
            ["CFBundleIdentifier": "com.example.sunrise", "CFBundleDisplayName": "Sunrise Alarm", "CFBundleIconFile": "AppIcon"])
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.icon, to: folder.appendingPathComponent("AppIcon.png"))
        let desktop = try PrivateDesktop()
        do {
            let presenter = DesktopPresenter(connection: try DBusConnection(address: desktop.busAddress)) { _, _, _, _ in }
            var configuration = OpenUserNotificationsConfiguration()
            configuration.bundleDirectory = folder.path
            configuration.foregroundPresentationWithoutDelegate = [.banner, .list]
            let system = try NotificationTestSystem(mode: mode, configuration: configuration, presentingThrough: presenter)
            let center = try await system.center(for: "com.example.sunrise")
            let content = UNMutableNotificationContent()
            content.title = "Good morning"
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
            try await center.add(UNNotificationRequest(identifier: "wake", content: content, trigger: trigger))
            await system.advance(by: 60)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }
            try await desktop.dunstctl("close-all")
            try await desktop.waitUntil("the notification is in dunst's history") { try await !desktop.history().isEmpty }
            let shown = try #require(try await desktop.history().first)
            #expect(shown.summary == "Good morning")
            #expect(shown.appName == "Sunrise Alarm")
            #expect(shown.iconPath == folder.appendingPathComponent("AppIcon.png").standardizedFileURL.path)
            await presenter.close()
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }
}
