import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
import Testing

@testable import NotificationWebCenter

/// Read and unread: kept by the daemon in its store, counted in the page header and per app, changed by Mark read
/// and Mark all read, ended by answering a notification anywhere, and sent live as `unread` events.
@Suite("Web center: read and unread", .timeLimit(.minutes(5)))
struct ReadStateTests {
    /// The unread badge the navigation shows beside Delivered (`nil` when the page has none).
    static func headerCount(_ html: String) -> String? {
        guard let start = html.range(of: "id=\"unread-total\" title=\"unread\">"),
            let end = html[start.upperBound...].range(of: "</span>")
        else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }

    /// The unread badge of one app's section on the Delivered page.
    static func appCount(_ html: String, app: String) -> String? {
        guard let start = html.range(of: "data-app=\"\(app)\" title=\"unread\">"),
            let end = html[start.upperBound...].range(of: "</span>")
        else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }

    static func page(_ client: any TestClientProtocol, _ session: BrowserSession, _ uri: String = "/") async throws
        -> String
    {
        String(buffer: try await client.execute(uri: uri, method: .get, headers: [.cookie: session.cookie]).body)
    }

    @Test("every delivery is unread: the header and each app count them, on every page")
    func counts() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("c1")
        try await fixture.deliver("c2")
        try await fixture.deliver("m1", app: "com.example.mail")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let html = try await Self.page(client, session)
            #expect(Self.headerCount(html) == "3")
            #expect(Self.appCount(html, app: "com.example.chat") == "2")
            #expect(Self.appCount(html, app: "com.example.mail") == "1")
            #expect(html.components(separatedBy: "class=\"notification unread\"").count - 1 == 3)
            #expect(html.contains(">Mark all read</button>"))
            for uri in ["/scheduled", "/history", "/apps", "/search?q=Title"] {
                #expect(Self.headerCount(try await Self.page(client, session, uri)) == "3", "\(uri)")
            }
        }
    }

    @Test("Mark read, Mark all read for an app and for every app; nothing reaches the app")
    func marking() async throws {
        let fixture = try WebCenterFixture()
        let app = RecordingApp()
        await fixture.scheduler.attach(app, appID: "com.example.chat")
        for id in ["c1", "c2", "c3"] { try await fixture.deliver(id) }
        try await fixture.deliver("m1", app: "com.example.mail")
        try await fixture.deliver("m2", app: "com.example.mail")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let one = try await client.execute(
                uri: "/delivered/read", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "c2")]))
            #expect(one.status == .seeOther)
            var html = try await Self.page(client, session)
            #expect(Self.headerCount(html) == "4")
            #expect(Self.appCount(html, app: "com.example.chat") == "2")
            #expect(html.contains("<article class=\"notification\" data-id=\"c2\">"))
            #expect(html.contains("<article class=\"notification unread\" data-id=\"c1\">"))
            let app = try await client.execute(
                uri: "/delivered/read", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.mail")]))
            #expect(app.status == .seeOther)
            html = try await Self.page(client, session)
            #expect(Self.headerCount(html) == "2")
            #expect(Self.appCount(html, app: "com.example.mail") == "")
            let all = try await client.execute(
                uri: "/delivered/read", method: .post, headers: session.postHeaders, body: session.form([]))
            #expect(all.status == .seeOther)
            html = try await Self.page(client, session)
            #expect(Self.headerCount(html) == "")
            #expect(!html.contains("class=\"notification unread\""))
            #expect(!html.contains("Mark all read"))
        }
        // Reading is not a response: the notifications stay delivered and the app heard nothing.
        #expect(app.responses.isEmpty)
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").count == 3)
    }

    @Test("the marks live in the daemon's store: another browser and a restarted daemon see them")
    func durable() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("read-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try WebCenterFixture(storePath: path)
        try await first.deliver("c1")
        try await first.deliver("c2")
        try await first.test { client in
            let session = try await BrowserSession.open(client, secret: first.secret)
            _ = try await client.execute(
                uri: "/delivered/read", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "c1")]))
            let other = try await BrowserSession.open(client, secret: first.secret)
            #expect(Self.headerCount(try await Self.page(client, other)) == "1")
        }
        try first.close()
        let restarted = try WebCenterFixture(storePath: path)
        defer { try? restarted.close() }
        try await restarted.test { client in
            let session = try await BrowserSession.open(client, secret: restarted.secret)
            let html = try await Self.page(client, session)
            #expect(Self.headerCount(html) == "1")
            #expect(html.contains("<article class=\"notification\" data-id=\"c1\">"))
            #expect(html.contains("<article class=\"notification unread\" data-id=\"c2\">"))
        }
    }

    @Test("a notification answered on the desktop or opened in the center no longer counts; a new one does")
    func answeredElsewhere() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("c1")
        try await fixture.deliver("c2")
        await fixture.relay.respond(
            appID: "com.example.chat", notificationIdentifier: "c1",
            actionIdentifier: ResponseSpec.defaultActionIdentifier, userText: nil)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            #expect(Self.headerCount(try await Self.page(client, session)) == "1")
            _ = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([
                    ("app", "com.example.chat"), ("id", "c2"), ("action", ResponseSpec.defaultActionIdentifier),
                ]))
            #expect(Self.headerCount(try await Self.page(client, session)) == "")
            // The same identifier delivered again is a new notification: unread.
            try await fixture.deliver("c2")
            #expect(Self.headerCount(try await Self.page(client, session)) == "1")
        }
    }

    @Test("a read mark does not carry over to a later delivery with the same identifier")
    func redeliveredIsUnread() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("c1", title: "First")
        let marks = fixture.center.readMarks
        let first = try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat")
        #expect(try await marks.markRead(appID: "com.example.chat", identifiers: ["c1"], delivered: first) == 1)
        try await fixture.deliver("c1", title: "Second")  // replaces the delivered one
        let second = try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat")
        #expect(second.map(\.request.content.title) == ["Second"])
        #expect(try await marks.unread(appID: "com.example.chat", delivered: second).count == 1)
    }

    @Test("marking an unknown notification is a 404, an id without its app a 400; nothing changes")
    func badInput() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("c1")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let unknown = try await client.execute(
                uri: "/delivered/read", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "<nope>")]))
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body).contains("&lt;nope&gt;"))
            let noApp = try await client.execute(
                uri: "/delivered/read", method: .post, headers: session.postHeaders, body: session.form([("id", "c1")]))
            #expect(noApp.status == .badRequest)
            #expect(Self.headerCount(try await Self.page(client, session)) == "1")
        }
    }

    @Test("the event stream opens with the unread counts and sends them again when they change")
    func liveCounts() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("c1")
        let events = WebCenterEvents(
            scheduler: fixture.scheduler, readMarks: fixture.center.readMarks, pollInterval: 1, historyLimit: 100,
            stopping: StopFlag())
        let (cursor, backlog) = try await events.start(after: nil)
        #expect(backlog.contains("event: unread\ndata: {\"apps\":{\"com.example.chat\":1},\"total\":1}\n\n"))
        try await fixture.deliver("m1", app: "com.example.mail")
        let (text, moved) = try await WebCenterEventsTests.nextEvent(events, cursor, fixture: fixture)
        #expect(text.contains("event: delivery"))
        #expect(
            text.contains("event: unread\ndata: {\"apps\":{\"com.example.chat\":1,\"com.example.mail\":1},\"total\":2}")
        )
        let delivered = try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat")
        try await fixture.center.readMarks.markRead(appID: "com.example.chat", identifiers: nil, delivered: delivered)
        let (marked, _) = try await WebCenterEventsTests.nextEvent(events, moved, fixture: fixture)
        #expect(marked == "event: unread\ndata: {\"apps\":{\"com.example.mail\":1},\"total\":1}\n\n")
    }
}
