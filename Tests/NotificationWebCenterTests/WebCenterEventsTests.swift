import Foundation
import NotificationEngine
import NotificationModel
import Testing

@testable import NotificationWebCenter

/// Live updates: deliveries and changes become server-sent events; a reconnect resumes after `Last-Event-ID`.
@Suite("Web center: live events")
struct WebCenterEventsTests {
    /// Runs `events.next` in a task and advances the manual clock (bounded) until it returns.
    static func nextEvent(
        _ events: WebCenterEvents, _ cursor: WebCenterEvents.Cursor, fixture: WebCenterFixture
    ) async throws -> (String, WebCenterEvents.Cursor) {
        let result = Shared<(String, WebCenterEvents.Cursor)?>(nil)
        let task = Task {
            var cursor = cursor
            let text = try await events.next(&cursor)
            result.set((text, cursor))
        }
        defer { task.cancel() }
        let deadline = Date().addingTimeInterval(20)
        while result.current == nil, Date() < deadline {
            fixture.clock.advance(by: 1)
            try await Task.sleep(for: .milliseconds(5))
        }
        return try #require(result.current, "no event within 20 s")
    }

    @Test("a delivery is an event with the store's history id; a response is a change event")
    func deliveryThenChange() async throws {
        let fixture = try WebCenterFixture()
        let events = WebCenterEvents(
            scheduler: fixture.scheduler, readMarks: fixture.center.readMarks, pollInterval: 1, historyLimit: 100,
            stopping: StopFlag())
        let (cursor, backlog) = try await events.start(after: nil)
        #expect(backlog == "retry: 2000\n\nevent: unread\ndata: {\"apps\":{},\"total\":0}\n\n")
        try await fixture.deliver("n1", title: "Live \"one\"\nsecond line")
        let (text, moved) = try await Self.nextEvent(events, cursor, fixture: fixture)
        let id = try #require(try await fixture.scheduler.history(appID: nil, limit: 1).first?.id)
        #expect(text.hasPrefix("id: \(id)\nevent: delivery\ndata: {"))
        #expect(text.contains("\"title\":\"Live \\\"one\\\"\\nsecond line\""))
        let delivery = try #require(text.components(separatedBy: "event: unread").first)
        #expect(delivery.hasSuffix("}\n\n"))
        #expect(delivery.components(separatedBy: "\n").count == 5)  // the data stays on one line
        #expect(text.hasSuffix("event: unread\ndata: {\"apps\":{\"com.example.chat\":1},\"total\":1}\n\n"))
        try await fixture.relay.forward(
            appID: "com.example.chat", notificationIdentifier: "n1",
            actionIdentifier: ResponseSpec.dismissActionIdentifier, userText: nil)
        let (change, _) = try await Self.nextEvent(events, moved, fixture: fixture)
        #expect(change == "event: change\ndata: {}\n\nevent: unread\ndata: {\"apps\":{},\"total\":0}\n\n")
    }

    @Test("a reconnect with Last-Event-ID gets every delivery after it, oldest first, and none before")
    func resume() async throws {
        let fixture = try WebCenterFixture()
        for id in ["a", "b", "c"] { try await fixture.deliver(id, title: "Title \(id)") }
        let entries = try await fixture.scheduler.history(appID: nil, limit: 10)
        let first = try #require(entries.last?.id)
        let events = WebCenterEvents(
            scheduler: fixture.scheduler, readMarks: fixture.center.readMarks, pollInterval: 1, historyLimit: 100,
            stopping: StopFlag())
        let (cursor, backlog) = try await events.start(after: first)
        #expect(!backlog.contains("Title a"))
        let b = try #require(backlog.range(of: "Title b")), c = try #require(backlog.range(of: "Title c"))
        #expect(b.lowerBound < c.lowerBound)
        #expect(cursor.lastID == entries.first?.id)
    }

    @Test("more deliveries between two polls than one read window holds all become events")
    func burstBeyondWindow() async throws {
        let fixture = try WebCenterFixture()
        let events = WebCenterEvents(
            scheduler: fixture.scheduler, readMarks: fixture.center.readMarks, pollInterval: 1, historyLimit: 1_000,
            stopping: StopFlag())
        let (cursor, _) = try await events.start(after: nil)
        try await fixture.scheduler.setAuthorization(appID: "com.example.chat", status: .authorized, options: [.alert])
        let count = WebCenterEvents.window + 50
        for index in 0..<count {
            var content = NotificationPayload()
            content.title = "Burst \(index)"
            try await fixture.scheduler.add(
                RequestSpec(identifier: "b\(index)", content: content, trigger: .timeInterval(1, repeats: false)),
                appID: "com.example.chat")
        }
        fixture.clock.advance(by: 1)
        while await fixture.scheduler.deliverDue() > 0 {}
        #expect(try await fixture.scheduler.history(appID: nil, limit: 1_000).count == count)
        let (text, moved) = try await Self.nextEvent(events, cursor, fixture: fixture)
        #expect(text.components(separatedBy: "event: delivery").count - 1 == count)
        #expect(text.contains("\"title\":\"Burst 0\""))
        #expect(moved.lastID == cursor.lastID + Int64(count))
    }
}
