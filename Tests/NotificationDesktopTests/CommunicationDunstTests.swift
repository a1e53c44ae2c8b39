import DBusKit
import Foundation
import NotificationDesktop
import NotificationEngine
import NotificationModel
import NotificationPlatform
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing
import TestPrograms

/// A messaging app's iOS service extension (Tests/Fixtures/MessageServiceFixture: INSendMessageIntent,
/// `updating(from:)`) run by the engine on a push, shown by a real dunst: the sender's name as the summary and the
/// sender's avatar as the icon. With `OPENUN_SCREENSHOT` set to a PNG path and ImageMagick's `import` installed,
/// the test also photographs the display (docs/images/communication-notification.png was taken so).
@Suite("Communication notifications through dunst", .enabled(if: PrivateDesktop.isAvailable), .timeLimit(.minutes(1)))
struct CommunicationDunstTests {
    static let app = "com.example.messenger"
    static let avatar = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Images/avatar.png")

    /// The path of a fixture executable built beside the test bundle.
    static func fixture(_ name: String = "MessageServiceFixture") throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        let bundle = Bundle.main.bundleURL.appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: bundle.path), "build \(name) first")
        return bundle.path
    }

    @Test("the sender's name and avatar on the notification server", arguments: NotificationTestSystem.Mode.allCases)
    func senderOnDunst(mode: NotificationTestSystem.Mode) async throws {
        let desktop = try PrivateDesktop()
        do {
            let presenter = DesktopPresenter(connection: try DBusConnection(address: desktop.busAddress)) { _, _, _, _ in }
            let system = try NotificationTestSystem(mode: mode, presentingThrough: presenter)
            let remote = RemoteNotificationRegistration(center: try await system.center(for: Self.app))
            try await remote.setServiceExtensionCommand([try Self.fixture()])
            let json = #"""
                {"aps":{"alert":{"title":"New message","body":"Rope and chalk are in the car. See you at 8!"},
                 "mutable-content":1,"thread-id":"chat-42"},
                 "sender-name":"Ana Lima","sender-id":"u-17","sender-avatar":"\#(Self.avatar.path)",
                 "conversation-id":"chat-42","group-name":"Climbing crew"}
                """#
            let push = RemoteNotification(payload: try APNsPayload.parse(Data(json.utf8)))
            #expect(try await system.scheduler.deliverPush(push, appID: Self.app) == .modifying)
            await system.scheduler.waitForServiceExtensions()
            try await desktop.waitUntil("dunst shows the message") { try await desktop.displayedCount() == 1 }
            if let path = ProcessInfo.processInfo.environment["OPENUN_SCREENSHOT"], mode == .daemon {
                try await screenshot(desktop, to: path)
            }
            try await desktop.dunstctl("close-all")
            try await desktop.waitUntil("the message is in dunst's history") { try await !desktop.history().isEmpty }
            let shown = try #require(try await desktop.history().first)
            #expect(shown.summary == "Ana Lima — Climbing crew")
            #expect(shown.body == "Rope and chalk are in the car. See you at 8!")
            #expect(shown.appName == Self.app)
            // The avatar came as bytes (INImage(imageData:)): the presenter wrote them to a file dunst loaded.
            #expect(shown.iconPath.hasSuffix(".png"))
            #expect(FileManager.default.contents(atPath: shown.iconPath) == (try Data(contentsOf: Self.avatar)))
            await presenter.close()
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }

    /// Photographs the desktop's display with ImageMagick's `import`, cropped to dunst's corner.
    func screenshot(_ desktop: PrivateDesktop, to path: String) async throws {
        guard let tool = SpawnedProcess.executable(named: "import") else { return }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-window", "root", "-crop", "354x148+670+40", "+repage", path]
        process.environment = desktop.environment
        try process.run()
        await process.exited()
        #expect(process.terminationStatus == 0)
    }
}
