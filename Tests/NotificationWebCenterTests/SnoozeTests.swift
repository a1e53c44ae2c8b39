import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
import NotificationWebCenter
import Testing

/// Snooze on the Delivered page: the engine gets a pending request with the same content, which fires through the
/// normal path at the right instant on the manual clock; the delivered one goes.
@Suite("Web center: snooze")
struct SnoozeTests {
    @Test(
        "snoozing for 10 min or 1 h: a pending '<id>.snoozed' on the Scheduled page, delivered again on time",
        arguments: [("10min", 600.0), ("1h", 3_600.0)])
    func interval(choice: String, seconds: TimeInterval) async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("n1", title: "Call mum", body: "before 6")
        let snoozedAt = fixture.clock.now
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let page = String(
                buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(page.contains("action=\"/delivered/snooze\""))
            #expect(page.contains("name=\"for\" value=\"\(choice)\""))
            let snooze = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("for", choice)]))
            #expect(snooze.status == .seeOther)
            #expect(snooze.headers[.location] == "/")
            let scheduled = String(
                buffer: try await client.execute(uri: "/scheduled", method: .get, headers: [.cookie: session.cookie])
                    .body)
            #expect(scheduled.contains("n1.snoozed"))
        }
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        #expect(fixture.presenter.withdrawn == ["n1"])
        let pending = try await fixture.scheduler.pendingRequests(appID: "com.example.chat")
        #expect(pending.map(\.identifier) == ["n1.snoozed"])
        #expect(pending.first?.nextFireDate == snoozedAt.addingTimeInterval(seconds))
        #expect(pending.first?.spec.content.title == "Call mum")
        // Not a moment early ...
        fixture.clock.advance(by: seconds - 0.5)
        await fixture.scheduler.deliverDue()
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        // ... and at the instant, through the engine's normal path.
        fixture.clock.advance(by: 0.5)
        await fixture.scheduler.deliverDue()
        let again = try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat")
        #expect(again.map(\.identifier) == ["n1.snoozed"])
        #expect(again.first?.date == snoozedAt.addingTimeInterval(seconds))
        #expect(again.first?.request.content.body == "before 6")
        let history = try await fixture.scheduler.history(appID: "com.example.chat", limit: 10)
        #expect(history.map(\.outcome) == [.delivered, .removed])
        #expect(history.map(\.requestIdentifier) == ["n1.snoozed", "n1"])
    }

    @Test("snoozing until tomorrow 9:00 uses the system zone and fires at 09:00 local time")
    func tomorrow() async throws {
        let fixture = try WebCenterFixture()
        fixture.clock.setTimeZone(TimeZone(identifier: "Europe/Paris")!)
        // 2026-01-05 10:00:01 in Paris (09:00:01 UTC).
        try await fixture.deliver("n1", title: "Water the plants")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let snooze = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("for", "tomorrow")]))
            #expect(snooze.status == .seeOther)
        }
        // 2026-01-06 09:00:00 in Paris is 08:00:00 UTC.
        let nine = Date(timeIntervalSince1970: 1_767_686_400)
        let pending = try await fixture.scheduler.pendingRequests(appID: "com.example.chat")
        #expect(pending.first?.nextFireDate == nine)
        #expect(pending.first?.isFloating == true)
        fixture.clock.set(to: nine.addingTimeInterval(-1))
        await fixture.scheduler.deliverDue()
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        fixture.clock.set(to: nine)
        await fixture.scheduler.deliverDue()
        let again = try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat")
        #expect(again.map(\.identifier) == ["n1.snoozed"])
        #expect(again.first?.date == nine)
        #expect(try await fixture.scheduler.pendingRequests(appID: "com.example.chat").isEmpty)
    }

    @Test("snoozing a snoozed notification keeps its identifier; attachment files stay for the snoozed copy")
    func again() async throws {
        let fixture = try WebCenterFixture()
        let folder = fixture.attachmentRoot + "/com.example.chat/a1"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/cat.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: URL(fileURLWithPath: file))
        try await fixture.deliver(
            "n1", attachments: [AttachmentSpec(identifier: "cat", url: URL(fileURLWithPath: file), type: "public.png")])
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let first = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("for", "10min")]))
            #expect(first.status == .seeOther)
            #expect(FileManager.default.fileExists(atPath: file))
            fixture.clock.advance(by: 600)
            await fixture.scheduler.deliverDue()
            let image = try await client.execute(
                uri: "/attachments/com.example.chat/n1.snoozed/0", method: .get, headers: [.cookie: session.cookie])
            #expect(image.status == .ok)
            let second = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1.snoozed"), ("for", "1h")]))
            #expect(second.status == .seeOther)
        }
        let pending = try await fixture.scheduler.pendingRequests(appID: "com.example.chat")
        #expect(pending.map(\.identifier) == ["n1.snoozed"])
        #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test("bad snoozes get 4xx pages and change nothing: unknown notification, unknown choice, a denied app")
    func refusals() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("n1")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let unknown = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "<nope>"), ("for", "10min")]))
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body).contains("&lt;nope&gt;"))
            let badChoice = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("for", "forever")]))
            #expect(badChoice.status == .badRequest)
            #expect(String(buffer: badChoice.body).contains("10min, 1h, tomorrow"))
            let missing = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1")]))
            #expect(missing.status == .badRequest)
            try await fixture.scheduler.setAuthorization(appID: "com.example.chat", status: .denied, options: [])
            let denied = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("for", "1h")]))
            #expect(denied.status == .unprocessableContent)
            let noSession = try await client.execute(
                uri: "/delivered/snooze", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: session.form([("app", "com.example.chat"), ("id", "n1"), ("for", "1h")]))
            #expect(noSession.status == .unauthorized)
        }
        #expect(
            try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").map(\.identifier) == ["n1"])
        #expect(try await fixture.scheduler.pendingRequests(appID: "com.example.chat").isEmpty)
    }
}
