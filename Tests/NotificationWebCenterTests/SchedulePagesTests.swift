import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
import NotificationWebCenter
import Testing

/// The Scheduled, History and Apps pages against the engine's state.
@Suite("Web center: scheduled, history, apps")
struct SchedulePagesTests {
    static func spec(_ id: String, title: String, trigger: TriggerSpec) -> RequestSpec {
        var content = NotificationPayload()
        content.title = title
        return RequestSpec(identifier: id, content: content, trigger: trigger)
    }

    @Test("Scheduled lists each pending request with its trigger in words, next fire dates and a 7-day timeline")
    func scheduled() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setAuthorization(appID: "com.example.chat", status: .authorized, options: [.alert])
        try await fixture.scheduler.add(
            Self.spec(
                "daily", title: "Stand-up",
                trigger: .calendar(
                    CalendarComponents(DateComponents(hour: 9, minute: 30)), repeats: true, matching: .apple)),
            appID: "com.example.chat")
        try await fixture.scheduler.add(
            Self.spec("once", title: "<Tea>", trigger: .timeInterval(3_600, repeats: false)), appID: "com.example.chat")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let html = String(
                buffer: try await client.execute(uri: "/scheduled", method: .get, headers: [.cookie: session.cookie])
                    .body)
            #expect(html.contains("every day at 09:30"))
            #expect(html.contains("1 h after it was added, once"))
            #expect(html.contains("&lt;Tea&gt;"))
            // The clock is 2026-01-05 09:00 UTC: the stand-up's next three dates.
            for day in ["2026-01-05 09:30:00", "2026-01-06 09:30:00", "2026-01-07 09:30:00"] {
                #expect(html.contains(day), "\(day)")
            }
            // 7 daily fires plus the one-off in the timeline.
            let svg = try #require(html.range(of: "<svg").map { html[$0.lowerBound...] })
            #expect(svg.components(separatedBy: "class=\"fire\"").count - 1 == 8)
            let removed = try await client.execute(
                uri: "/scheduled/remove", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "daily")]))
            #expect(removed.status == .seeOther)
            #expect(
                try await fixture.scheduler.pendingRequests(appID: "com.example.chat").map(\.identifier) == ["once"])
            let again = try await client.execute(
                uri: "/scheduled/remove", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("id", "daily")]))
            #expect(again.status == .notFound)
        }
    }

    @Test("History shows due and delivered instants, lateness, presenter and outcome, filtered by app and outcome")
    func history() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("n1", title: "First")
        try await fixture.deliver("m1", app: "com.example.mail", title: "Mail")
        try await fixture.relay.forward(
            appID: "com.example.chat", notificationIdentifier: "n1",
            actionIdentifier: ResponseSpec.defaultActionIdentifier, userText: nil)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let all = String(
                buffer: try await client.execute(uri: "/history", method: .get, headers: [.cookie: session.cookie]).body
            )
            #expect(all.contains("First") && all.contains("Mail"))
            #expect(all.contains("recording"))  // the presenter's name
            #expect(all.contains("0.0 ms"))  // the manual clock delivers exactly on time
            #expect(all.contains("class=\"histogram\""))
            let chat = String(
                buffer: try await client.execute(
                    uri: "/history?app=com.example.chat", method: .get, headers: [.cookie: session.cookie]
                ).body)
            #expect(chat.contains("First") && !chat.contains("<br>Mail"))
            let delivered = String(
                buffer: try await client.execute(
                    uri: "/history?outcome=delivered", method: .get, headers: [.cookie: session.cookie]
                ).body)
            #expect(delivered.contains("data-outcome=\"delivered\""))
            #expect(!delivered.contains("data-outcome=\"action\""))
            let bad = try await client.execute(
                uri: "/history?outcome=%3Cb%3E", method: .get, headers: [.cookie: session.cookie])
            #expect(bad.status == .badRequest)
            #expect(String(buffer: bad.body).contains("&lt;b&gt;"))
        }
    }

    @Test("Apps shows each app's settings and categories; the form changes what unotify authorize changes")
    func apps() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.scheduler.setCategories(
            [
                CategorySpec(
                    identifier: "message", actions: [ActionSpec(identifier: "reply", title: "Reply")], options: 1)
            ],
            appID: "com.example.chat")
        try await fixture.deliver("n1")
        try await fixture.scheduler.setBadge(appID: "com.example.chat", count: 3)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let html = String(
                buffer: try await client.execute(uri: "/apps", method: .get, headers: [.cookie: session.cookie]).body)
            #expect(html.contains("Authorization: <span class=\"status\">authorized</span>"))
            #expect(html.contains("Reply <span class=\"muted\">(reply)</span>"))
            #expect(html.contains("custom dismiss action"))
            #expect(html.contains("Clear badge (3)"))
            // Sounds off, alerts and badges on.
            let saved = try await client.execute(
                uri: "/apps/settings", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("allow", "on"), ("alert", "on"), ("badge", "on")]))
            #expect(saved.status == .seeOther)
            var state = try await fixture.scheduler.appState(appID: "com.example.chat")
            #expect(state.authorization == .authorized)
            #expect(state.grantedOptions == [.alert, .badge])
            // Turning notifications off denies, as `unotify authorize --deny`.
            _ = try await client.execute(
                uri: "/apps/settings", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat")]))
            state = try await fixture.scheduler.appState(appID: "com.example.chat")
            #expect(state.authorization == .denied)
            let badge = try await client.execute(
                uri: "/apps/badge", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.chat"), ("count", "0")]))
            #expect(badge.status == .seeOther)
            #expect(try await fixture.scheduler.appState(appID: "com.example.chat").badge == 0)
            let unknown = try await client.execute(
                uri: "/apps/settings", method: .post, headers: session.postHeaders,
                body: session.form([("app", "com.example.nobody"), ("allow", "on")]))
            #expect(unknown.status == .notFound)
        }
    }
}
