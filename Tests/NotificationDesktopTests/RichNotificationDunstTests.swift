import DBusKit
import Foundation
import NotificationDesktop
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import TestImageServer
import Testing

/// The iOS-style download-and-attach extension (Tests/Fixtures/RichNotificationFixture) run by the engine on a push
/// naming an image on a local HTTP server, shown by a real dunst with the downloaded image.
@Suite("Rich notifications through dunst", .enabled(if: PrivateDesktop.isAvailable), .timeLimit(.minutes(1)))
struct RichNotificationDunstTests {
    static let app = "com.example.photos"

    @Test("the downloaded image is the notification's image", arguments: NotificationTestSystem.Mode.allCases)
    func imageOnDunst(mode: NotificationTestSystem.Mode) async throws {
        let desktop = try PrivateDesktop()
        let server = try await ImageServer()
        do {
            let presenter = DesktopPresenter(connection: try DBusConnection(address: desktop.busAddress)) { _, _, _, _ in }
            let system = try NotificationTestSystem(mode: mode, presentingThrough: presenter)
            let remote = RemoteNotificationRegistration(center: try await system.center(for: Self.app))
            try await remote.setServiceExtensionCommand([try CommunicationDunstTests.fixture("RichNotificationFixture")])
            let json = #"""
                {"aps":{"alert":{"title":"New photo","body":"Sunrise at the lake"},"mutable-content":1},
                 "image-url":"\#(server.url("sunrise.png"))"}
                """#
            let push = RemoteNotification(payload: try APNsPayload.parse(Data(json.utf8)))
            #expect(try await system.scheduler.deliverPush(push, appID: Self.app) == .modifying)
            await system.scheduler.waitForServiceExtensions()
            try await desktop.waitUntil("dunst shows the photo") { try await desktop.displayedCount() == 1 }
            let delivered = try #require(try await system.scheduler.deliveredNotifications(appID: Self.app).first)
            let stored = try #require(delivered.request.content.attachments.first?.url.path)
            try await desktop.dunstctl("close-all")
            try await desktop.waitUntil("the photo is in dunst's history") { try await !desktop.history().isEmpty }
            let shown = try #require(try await desktop.history().first)
            #expect(shown.summary == "New photo" && shown.body == "Sunrise at the lake")
            #expect(shown.iconPath == stored)
            #expect(FileManager.default.contents(atPath: shown.iconPath)
                == FileManager.default.contents(atPath: ImageServer.images.appendingPathComponent("sunrise.png").path))
            await presenter.close()
        } catch {
            await server.stop()
            await desktop.stop()
            throw error
        }
        await server.stop()
        await desktop.stop()
    }
}
