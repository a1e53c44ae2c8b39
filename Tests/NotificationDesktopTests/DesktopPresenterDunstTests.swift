import DBusKit
import Foundation
import NotificationDesktop
import NotificationModel
import Testing

/// A response the presenter reported.
struct Response: Equatable, Sendable {
    var appID: String
    var identifier: String
    var action: String
    var text: String? = nil
}

/// The presenter against a real dunst on a private bus and display, each test with its own desktop.
@Suite("DesktopPresenter with dunst", .enabled(if: PrivateDesktop.isAvailable), .timeLimit(.minutes(1)))
struct DesktopPresenterDunstTests {
    static let appID = "com.example.desktop-tests"

    /// Runs `body` with a fresh desktop, a presenter on its bus and the stream of the presenter's responses.
    func withPresenter(
        _ body: (PrivateDesktop, DesktopPresenter, AsyncStream<Response>) async throws -> Void
    ) async throws {
        let desktop = try PrivateDesktop()
        let (responses, continuation) = AsyncStream<Response>.makeStream()
        do {
            let connection = try DBusConnection(address: desktop.busAddress)
            let presenter = DesktopPresenter(connection: connection) { appID, identifier, action, text in
                continuation.yield(Response(appID: appID, identifier: identifier, action: action, text: text))
            }
            do {
                try await body(desktop, presenter, responses)
            } catch {
                await presenter.close()
                throw error
            }
            await presenter.close()
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }

    func notification(_ identifier: String, title: String, body: String, category: String = "") -> DeliveredNotification
    {
        var content = NotificationPayload()
        content.title = title
        content.subtitle = ""
        content.body = body
        content.categoryIdentifier = category
        content.sound = SoundSpec()
        return DeliveredNotification(
            appID: Self.appID, request: RequestSpec(identifier: identifier, content: content, trigger: nil),
            date: Date(timeIntervalSince1970: 0), dueDate: Date(timeIntervalSince1970: 0),
            presentation: [.banner, .list, .sound])
    }

    let meeting = CategorySpec(
        identifier: "meeting",
        actions: [
            ActionSpec(identifier: "snooze", title: "Snooze 5 min"),
            ActionSpec(identifier: "decline", title: "Decline"),
        ])

    @Test("the presenter reads dunst's information and capabilities")
    func serverInformation() async throws {
        try await withPresenter { _, presenter, _ in
            let info = try #require(await presenter.serverInfo())
            #expect(info.name == "dunst")
            #expect(info.supportsActions)
            #expect(info.supportsBodyMarkup)
        }
    }

    @Test("a notification appears with its summary and body; dismissing it answers the dismiss action")
    func presentAndDismiss() async throws {
        try await withPresenter { desktop, presenter, responses in
            await presenter.present(
                notification("plants", title: "Water the plants", body: "Tom & Jerry <3 100%%"),
                options: [.banner, .sound], category: meeting)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }

            try await desktop.dunstctl("close")
            let response = try await firstElement(of: responses)
            #expect(
                response
                    == Response(appID: Self.appID, identifier: "plants", action: ResponseSpec.dismissActionIdentifier))

            try await desktop.waitUntil("the notification is in dunst's history") { try await !desktop.history().isEmpty }
            let history = try await desktop.history()
            #expect(history.count == 1)
            #expect(history.first?.summary == "Water the plants")
            #expect(history.first?.body == "Tom &amp; Jerry &lt;3 100%")
            #expect(history.first?.appName == Self.appID)
        }
    }

    @Test("invoking the default action answers Apple's default action identifier")
    func defaultAction() async throws {
        try await withPresenter { desktop, presenter, responses in
            await presenter.present(
                notification("standup", title: "Meeting soon", body: "Standup in 5 min", category: "meeting"),
                options: [.banner], category: meeting)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }

            try await desktop.dunstctl("action", "0")
            let response = try await firstElement(of: responses)
            #expect(
                response
                    == Response(appID: Self.appID, identifier: "standup", action: ResponseSpec.defaultActionIdentifier))
        }
    }

    @Test("withdrawing closes the notification and answers nothing")
    func withdraw() async throws {
        try await withPresenter { desktop, presenter, responses in
            await presenter.present(
                notification("gone", title: "Soon gone", body: "withdrawn"), options: [.banner], category: nil)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }

            await presenter.withdraw(appID: Self.appID, identifiers: ["gone"])
            try await desktop.waitUntil("dunst no longer shows it") { try await desktop.displayedCount() == 0 }
            #expect(await presenter.serverID(appID: Self.appID, identifier: "gone") == nil)

            // Signals arrive in order on the presenter's connection: if the withdrawal had answered anything, that
            // answer would come before this second notification's dismissal.
            await presenter.present(
                notification("marker", title: "Marker", body: "dismissed"), options: [.banner], category: nil)
            try await desktop.waitUntil("dunst shows the marker") { try await desktop.displayedCount() == 1 }
            try await desktop.dunstctl("close")
            let response = try await firstElement(of: responses)
            #expect(
                response
                    == Response(appID: Self.appID, identifier: "marker", action: ResponseSpec.dismissActionIdentifier))
        }
    }

    @Test("presenting the same identifier again replaces the notification on screen")
    func replace() async throws {
        try await withPresenter { desktop, presenter, responses in
            await presenter.present(
                notification("score", title: "Score", body: "1 : 0"), options: [.banner], category: nil)
            let first = await presenter.serverID(appID: Self.appID, identifier: "score")
            await presenter.present(
                notification("score", title: "Score", body: "2 : 0"), options: [.banner], category: nil)
            let second = await presenter.serverID(appID: Self.appID, identifier: "score")
            #expect(first != nil)
            #expect(first == second)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }

            try await desktop.dunstctl("close-all")
            let response = try await firstElement(of: responses)
            #expect(
                response
                    == Response(appID: Self.appID, identifier: "score", action: ResponseSpec.dismissActionIdentifier))
            try await desktop.waitUntil("the notification is in dunst's history") { try await !desktop.history().isEmpty }
            let history = try await desktop.history()
            #expect(history.map(\.body) == ["2 : 0"])
        }
    }

    @Test("dunst's history read through DBusKit decodes arrays of a{sv} dictionaries")
    func historyThroughDBusKit() async throws {
        try await withPresenter { desktop, presenter, responses in
            await presenter.present(
                notification("kept", title: "Kept", body: "in history"), options: [.banner], category: nil)
            try await desktop.waitUntil("dunst shows the notification") { try await desktop.displayedCount() == 1 }
            try await desktop.dunstctl("close")
            _ = try await firstElement(of: responses)

            let connection = try DBusConnection(address: desktop.busAddress)
            let reply = try await connection.call(
                DBusMethodCall(
                    destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.dunstproject.cmd0", member: "NotificationListHistory"))
            await connection.close()
            guard case .array(let entries)? = reply.first, case .variantDictionary(let entry)? = entries.first else {
                Issue.record("NotificationListHistory answered \(reply)")
                return
            }
            #expect(entry["summary"] == .string("Kept"))
            #expect(entry["body"] == .string("in history"))
            #expect(entry["appname"] == .string(Self.appID))
        }
    }
}
