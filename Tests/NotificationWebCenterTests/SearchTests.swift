import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationEngine
import NotificationModel
import NotificationWebCenter
import Testing

/// The search box: `GET /search?q=` across delivered notifications and the history of every app.
@Suite("Web center: search")
struct SearchTests {
    /// Delivers a notification with a subtitle now.
    static func deliver(
        _ fixture: WebCenterFixture, _ identifier: String, app: String, title: String, subtitle: String = "",
        body: String = ""
    ) async throws {
        try await fixture.scheduler.setAuthorization(appID: app, status: .authorized, options: [.alert])
        var content = NotificationPayload()
        content.title = title
        content.subtitle = subtitle
        content.body = body
        try await fixture.scheduler.add(
            RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(1, repeats: false)), appID: app
        )
        fixture.clock.advance(by: 1)
        await fixture.scheduler.deliverDue()
    }

    static func search(_ client: any TestClientProtocol, _ session: BrowserSession, _ query: String) async throws
        -> (status: HTTPResponse.Status, html: String)
    {
        let response = try await client.execute(
            uri: "/search?q=" + query, method: .get, headers: [.cookie: session.cookie])
        return (response.status, String(buffer: response.body))
    }

    /// The `data-id` of each delivered result, in order.
    static func deliveredIDs(_ html: String) -> [String] {
        html.components(separatedBy: "<article class=\"notification result\"").dropFirst().compactMap { part in
            guard let start = part.range(of: "data-id=\"") else { return nil }
            return String(part[start.upperBound...].prefix { $0 != "\"" })
        }
    }

    @Test("every word is found in a title, subtitle, body or identifier of any app, ignoring case and diacritics")
    func delivered() async throws {
        let fixture = try WebCenterFixture()
        try await Self.deliver(fixture, "c1", app: "com.example.chat", title: "Lunch at the Café", body: "see you")
        try await Self.deliver(
            fixture, "m1", app: "com.example.mail", title: "Invoice", subtitle: "From the café",
            body: "Your LUNCH receipt")
        try await Self.deliver(fixture, "lunch-42", app: "com.example.mail", title: "Nothing here")
        try await Self.deliver(fixture, "x1", app: "com.example.chat", title: "Dinner", body: "elsewhere")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let lunch = try await Self.search(client, session, "lunch")
            #expect(lunch.status == .ok)
            #expect(Self.deliveredIDs(lunch.html) == ["lunch-42", "m1", "c1"])  // newest first
            #expect(lunch.html.contains("<mark>Lunch</mark> at the Café"))
            #expect(lunch.html.contains("Your <mark>LUNCH</mark> receipt"))
            #expect(lunch.html.contains("<mark>lunch</mark>-42"))
            let cafe = try await Self.search(client, session, "CAFE")
            #expect(Self.deliveredIDs(cafe.html) == ["m1", "c1"])
            #expect(cafe.html.contains("From the <mark>café</mark>"))
            let both = try await Self.search(client, session, "lunch+receipt")
            #expect(Self.deliveredIDs(both.html) == ["m1"])
            let none = try await Self.search(client, session, "breakfast")
            #expect(Self.deliveredIDs(none.html).isEmpty)
            #expect(none.html.contains("No delivered notification matches."))
            #expect(none.html.contains("value=\"breakfast\""))
        }
    }

    @Test("history entries of every app are found by title and request identifier, after they left the list")
    func history() async throws {
        let fixture = try WebCenterFixture()
        try await Self.deliver(fixture, "old-1", app: "com.example.chat", title: "Parcel arrived")
        try await Self.deliver(fixture, "p2", app: "com.example.shop", title: "Your parcel shipped")
        try await fixture.scheduler.removeDelivered(appID: "com.example.chat", identifiers: nil)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let parcel = try await Self.search(client, session, "PARCEL")
            #expect(Self.deliveredIDs(parcel.html) == ["p2"])
            let rows = parcel.html.components(separatedBy: "<tr class=\"result\"").dropFirst()
            // One entry per notification, following what became of it; newest delivery first.
            #expect(rows.map { String($0.split(separator: "\"")[1]) } == ["delivered", "removed"])
            #expect(rows.first?.contains("com.example.shop") == true)
            #expect(parcel.html.contains("<mark>Parcel</mark> arrived"))
            #expect(parcel.html.contains("(2 of the newest 2)"))
            let byID = try await Self.search(client, session, "old-1")
            #expect(Self.deliveredIDs(byID.html).isEmpty)
            #expect(byID.html.contains("<mark>old-1</mark>"))
        }
    }

    @Test("results and the query are escaped; HTML in a query or a title is never rendered")
    func escaping() async throws {
        let fixture = try WebCenterFixture()
        let hostile = "<script>alert('x')</script>"
        try await Self.deliver(fixture, "h1", app: "com.example.chat", title: "Look " + hostile, body: hostile)
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let result = try await Self.search(client, session, "%3Cscript%3E")
            #expect(result.status == .ok)
            #expect(!result.html.contains("<script>alert"))
            #expect(Self.deliveredIDs(result.html) == ["h1"])
            #expect(result.html.contains("Look <mark>&lt;script&gt;</mark>alert(&#39;x&#39;)&lt;/script&gt;"))
            #expect(result.html.contains("value=\"&lt;script&gt;\""))
            #expect(result.html.contains("<title>Search: &lt;script&gt; · unotify center</title>"))
            let quote = try await Self.search(client, session, "%22%3E%3Cb%3E")
            #expect(quote.html.contains("value=\"&quot;&gt;&lt;b&gt;\""))
            #expect(!quote.html.contains("\"><b>"))
        }
    }

    @Test("an empty query shows the form alone; an oversized or malformed one gets a 400 page; 401 without a session")
    func limits() async throws {
        let fixture = try WebCenterFixture()
        try await Self.deliver(fixture, "n1", app: "com.example.chat", title: "Anything")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            for query in ["", "+++", "%20%09"] {
                let empty = try await Self.search(client, session, query)
                #expect(empty.status == .ok)
                #expect(empty.html.contains("Type words to find"))
                #expect(Self.deliveredIDs(empty.html).isEmpty)
            }
            let noQuery = try await client.execute(uri: "/search", method: .get, headers: [.cookie: session.cookie])
            #expect(noQuery.status == .ok)
            let longest = try await Self.search(client, session, String(repeating: "a", count: 200))
            #expect(longest.status == .ok)
            let oversized = try await Self.search(client, session, String(repeating: "a", count: 201))
            #expect(oversized.status == .badRequest)
            #expect(oversized.html.contains("a search is at most 200 characters (this one has 201)"))
            let malformed = try await Self.search(client, session, "%zz")
            #expect(malformed.status == .badRequest)
            let notUTF8 = try await Self.search(client, session, "%ff")
            #expect(notUTF8.status == .badRequest)
            let anonymous = try await client.execute(uri: "/search?q=anything", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(!String(buffer: anonymous.body).contains("Anything"))
            // Every page has the search box.
            for path in ["/", "/scheduled", "/history", "/apps"] {
                let page = String(
                    buffer: try await client.execute(uri: path, method: .get, headers: [.cookie: session.cookie]).body)
                #expect(page.contains("<form method=\"get\" action=\"/search\" class=\"search\" role=\"search\">"))
            }
        }
    }
}
