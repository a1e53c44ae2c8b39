import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
import NotificationWebCenter
import Testing

/// The Delivered page: what it shows, and that what a person does there reaches the app as a desktop click does.
@Suite("Web center: delivered")
struct DeliveredPageTests {
    static let reply = CategorySpec(
        identifier: "message",
        actions: [
            ActionSpec(identifier: "like", title: "Like"),
            ActionSpec(
                identifier: "reply", title: "Reply", textInput: .init(buttonTitle: "Send", placeholder: "Message")),
            ActionSpec(identifier: "delete", title: "Delete", options: 2),
        ])

    @Test("notifications are grouped by app and thread, newest first, with their text, time and action buttons")
    func grouping() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setCategories([Self.reply], appID: "com.example.chat")
        try await fixture.deliver("c1", title: "First in alpha", category: "message", thread: "alpha")
        try await fixture.deliver("m1", app: "com.example.mail", title: "A mail")
        try await fixture.deliver("c2", title: "In beta", category: "message", thread: "beta")
        try await fixture.deliver("c3", title: "Second in alpha", category: "message", thread: "alpha")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let html = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            // Chat (newest c3) before mail; in chat, thread alpha (c3) before beta (c2); c3 before c1.
            let order = ["Second in alpha", "First in alpha", "In beta", "A mail"].map {
                html.range(of: $0)?.lowerBound
            }
            #expect(order.allSatisfy { $0 != nil })
            #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted())
            #expect(html.contains("data-thread=\"alpha\""))
            #expect(html.contains(">Like</button>"))
            #expect(html.contains("placeholder=\"Message\""))
            #expect(html.contains(">Send</button>"))
            #expect(html.contains("class=\"action destructive\">Delete</button>"))
            #expect(html.contains("2026-01-05 09:00:0"))  // the delivery time, in the clock's zone (UTC)
        }
    }

    @Test("HTML in titles, bodies, identifiers and action titles is escaped, never rendered")
    func escaping() async throws {
        let fixture = try WebCenterFixture()
        let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>"
        try await fixture.scheduler.setCategories(
            [CategorySpec(identifier: "c", actions: [ActionSpec(identifier: "a\"b", title: hostile)])],
            appID: "com.example.chat")
        try await fixture.deliver("id\"<x>", title: hostile, body: hostile, category: "c", thread: hostile)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let html = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(!html.contains("<script>alert"))
            #expect(!html.contains("<img src=x"))
            #expect(
                html.contains(
                    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
            #expect(html.contains("value=\"id&quot;&lt;x&gt;\""))
        }
    }

    @Test("an action pressed in the center reaches the running app's delegate, as a desktop click does")
    func actionReachesDelegate() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setCategories([Self.reply], appID: "com.example.chat")
        try await fixture.deliver("n1", title: "Lunch?", category: "message")
        try await fixture.deliver("n2", title: "Dinner?", category: "message")
        let app = RecordingApp()
        await fixture.scheduler.attach(app, appID: "com.example.chat")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let like = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("action", "like")]))
            #expect(like.status == .seeOther)
            #expect(like.headers[.location] == "/")
            let reply = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([
                    ("app", "com.example.chat"), ("id", "n2"), ("action", "reply"), ("text", "Yes & <see you>"),
                ]))
            #expect(reply.status == .seeOther)
        }
        let responses = app.responses
        #expect(responses.map(\.actionIdentifier) == ["like", "reply"])
        #expect(responses.map(\.notification.identifier) == ["n1", "n2"])
        #expect(responses.last?.userText == "Yes & <see you>")
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        // The desktop's way leaves the same trace in the history.
        let history = try await fixture.scheduler.history(appID: "com.example.chat", limit: 10)
        #expect(history.filter { $0.outcome == .action }.count == 2)
        // The popup the presenter showed was withdrawn, as after a desktop click.
        #expect(Set(fixture.presenter.withdrawn) == ["n1", "n2"])
    }

    @Test("a response to an app that is not running is queued for it; dismiss and clear go the same way")
    func queuedWhenNotRunning() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setCategories(
            [CategorySpec(identifier: "message", actions: Self.reply.actions, options: 1)], appID: "com.example.chat")
        for id in ["n1", "n2", "n3", "n4"] { try await fixture.deliver(id, category: "message") }
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let open = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([
                    ("app", "com.example.chat"), ("id", "n1"), ("action", ResponseSpec.defaultActionIdentifier),
                ]))
            #expect(open.status == .seeOther)
            let dismiss = try await client.execute(
                uri: "/delivered/dismiss", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n2")]))
            #expect(dismiss.status == .seeOther)
            let clear = try await client.execute(
                uri: "/delivered/clear", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat")]))
            #expect(clear.status == .seeOther)
        }
        let queued = try await fixture.scheduler.store.queuedResponses(appID: "com.example.chat")
        #expect(
            queued.map(\.response.actionIdentifier) == [
                ResponseSpec.defaultActionIdentifier, ResponseSpec.dismissActionIdentifier,
                ResponseSpec.dismissActionIdentifier, ResponseSpec.dismissActionIdentifier,
            ])
        #expect(Set(queued.map(\.response.notification.identifier)) == ["n1", "n2", "n3", "n4"])
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        // The app takes them when it next runs, as with desktop clicks.
        let app = RecordingApp()
        await fixture.scheduler.attach(app, appID: "com.example.chat")
        #expect(app.responses.count == 4)
    }

    @Test("unknown notifications and actions get a clear 404 or 422 page")
    func unknownIDs() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setCategories([Self.reply], appID: "com.example.chat")
        try await fixture.deliver("n1", category: "message")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let unknown = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "nope<b>"), ("action", "like")]))
            #expect(unknown.status == .notFound)
            let page = String(buffer: unknown.body)
            #expect(page.contains("nope&lt;b&gt;"))
            let badAction = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("action", "fly")]))
            #expect(badAction.status == .unprocessableContent)
            let missingField = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat")]))
            #expect(missingField.status == .badRequest)
            let attachment = try await client.execute(
                uri: "/attachments/com.example.chat/n1/0", method: .get, headers: [.cookie: session.cookie])
            #expect(attachment.status == .notFound)
        }
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").count == 1)
    }

    @Test("attachment images are served from the attachment store only")
    func attachments() async throws {
        let fixture = try WebCenterFixture()
        let folder = fixture.attachmentRoot + "/com.example.chat/a1"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        try png.write(to: URL(fileURLWithPath: folder + "/cat.png"))
        try await fixture.deliver(
            "n1", title: "Photo",
            attachments: [
                AttachmentSpec(identifier: "cat", url: URL(fileURLWithPath: folder + "/cat.png"), type: "public.png"),
                AttachmentSpec(identifier: "passwd", url: URL(fileURLWithPath: "/etc/passwd"), type: "public.png"),
            ])
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let html = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(html.contains("src=\"/attachments/com.example.chat/n1/0\""))
            let image = try await client.execute(
                uri: "/attachments/com.example.chat/n1/0", method: .get, headers: [.cookie: session.cookie])
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            #expect(Data(buffer: image.body) == png)
            let outside = try await client.execute(
                uri: "/attachments/com.example.chat/n1/1", method: .get, headers: [.cookie: session.cookie])
            #expect(outside.status == .notFound)
        }
    }
}
