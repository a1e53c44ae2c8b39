import Foundation
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import TestImageServer
import Testing

/// The rich-notification extension as iOS apps write it (Tests/Fixtures/RichNotificationFixture: URLSession
/// download, move to a temporary folder, attachment, content handler through `OperationQueue.main`), run by the
/// engine as the app's declared executable on pushes that name an image on a local HTTP server.
@Suite("Rich notifications: an iOS-style download-and-attach extension", .serialized, .timeLimit(.minutes(1)))
struct RichNotificationTests {
    static let app = "com.example.photos"

    static func fixture(_ name: String) throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        let bundle = Bundle.main.bundleURL.appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: bundle.path), "build \(name) first")
        return bundle.path
    }

    static func push(imageURL: String) throws -> RemoteNotification {
        let json = #"{"aps":{"alert":{"title":"New photo","body":"Sunrise at the lake"},"mutable-content":1},"image-url":"\#(imageURL)"}"#
        return RemoteNotification(payload: try APNsPayload.parse(Data(json.utf8)), apnsID: "photo-1")
    }

    func withServer(
        _ mode: NotificationTestSystem.Mode, _ body: (NotificationTestSystem, ImageServer) async throws -> Void
    ) async throws {
        let server = try await ImageServer()
        do {
            let system = try NotificationTestSystem(mode: mode)
            let remote = RemoteNotificationRegistration(center: try await system.center(for: Self.app))
            try await remote.setServiceExtensionCommand([try Self.fixture("RichNotificationFixture")])
            try await body(system, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("the image is downloaded, attached and moved into the data store", arguments: NotificationTestSystem.Mode.allCases)
    func downloadsAndAttaches(mode: NotificationTestSystem.Mode) async throws {
        try await withServer(mode) { system, server in
            let start = system.clock.now
            #expect(try await system.scheduler.deliverPush(try Self.push(imageURL: server.url("sunrise.png")), appID: Self.app) == .modifying)
            await system.scheduler.waitForServiceExtensions()  // no clock advance: well inside the 30 s budget
            let delivered = try #require(try await system.scheduler.deliveredNotifications(appID: Self.app).first)
            #expect(delivered.date == start)
            let content = delivered.request.content
            #expect(content.title == "New photo" && content.body == "Sunrise at the lake")
            let attachment = try #require(content.attachments.first)
            #expect(content.attachments.count == 1)
            #expect(attachment.identifier == "image" && attachment.type == "public.png")
            #expect(attachment.url.path.hasPrefix(system.configuration.resolvedAttachmentStorePath + "/"))
            let served = try Data(contentsOf: ImageServer.images.appendingPathComponent("sunrise.png"))
            #expect(FileManager.default.contents(atPath: attachment.url.path) == served)
            #expect(system.presenter.presentations.map(\.title) == ["New photo"])
        }
    }

    @Test("a server too slow for the budget: serviceExtensionTimeWillExpire delivers the best attempt")
    func tooSlow() async throws {
        try await withServer(.embedded) { system, server in
            #expect(try await system.scheduler.deliverPush(try Self.push(imageURL: server.url("slow/sunrise.png")), appID: Self.app) == .modifying)
            await system.advance(by: 29)
            #expect(system.presenter.presentations.isEmpty)
            await system.advance(by: 1)  // the 30 s budget, on the engine's clock
            await system.scheduler.waitForServiceExtensions()
            let delivered = try #require(try await system.scheduler.deliveredNotifications(appID: Self.app).first)
            #expect(delivered.request.content.title == "New photo [no image]")
            #expect(delivered.request.content.attachments.isEmpty)
        }
    }

    @Test("no image URL in the payload: the content as it came")
    func noImage() async throws {
        try await withServer(.embedded) { system, _ in
            let json = #"{"aps":{"alert":{"title":"Text only"},"mutable-content":1}}"#
            let push = RemoteNotification(payload: try APNsPayload.parse(Data(json.utf8)))
            #expect(try await system.scheduler.deliverPush(push, appID: Self.app) == .modifying)
            await system.scheduler.waitForServiceExtensions()
            #expect(system.presenter.presentations.map(\.title) == ["Text only"])
        }
    }
}
