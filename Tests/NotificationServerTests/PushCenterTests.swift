import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NotificationEngine
import NotificationModel
import NotificationServer
import NotificationStorePostgres
import OpenUserNotificationsTesting
import PushTestSupport
import Testing

/// The push statistics pages of a worker (`/center`, issue 20): the web center's access rules with the API's token,
/// the list of pushes and one push's page with the figures of a push sent through a worker to our APNs endpoint, the
/// chart by hour, escaping, and the live part the page fetches again.
@Suite("Push service: statistics pages in the browser", .timeLimit(.minutes(5)))
struct PushCenterTests {
    static let start = instant("2026-11-26T12:00:00Z")

    /// A GET with optional cookie and authorization; the status, headers and body text.
    static func get(
        _ client: any TestClientProtocol, _ uri: String, cookie: String? = nil, authorization: String? = nil
    ) async throws -> (HTTPResponse.Status, HTTPFields, String) {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = cookie }
        if let authorization { headers[.authorization] = authorization }
        let response = try await client.execute(uri: uri, method: .get, headers: headers, body: nil)
        return (response.status, response.headers, String(decoding: response.body.readableBytesView, as: UTF8.self))
    }

    /// A one-time link's token from `POST /v1/center-links` (what `unotify server center` calls).
    static func linkToken(_ client: any TestClientProtocol) async throws -> String {
        let (status, answer) = try await ServerAPITests.send(client, .post, "/v1/center-links")
        #expect(status == .created)
        let token = try #require(answer["token"] as? String)
        #expect(answer["path"] as? String == "/center?token=" + token)
        return token
    }

    /// Opens a session with a one-time link and answers the cookie (`name=value`).
    static func openSession(_ client: any TestClientProtocol) async throws -> String {
        let (status, headers, _) = try await get(client, "/center?token=\(try await linkToken(client))")
        #expect(status == .seeOther)
        let setCookie = try #require(headers[.setCookie])
        return String(try #require(setCookie.split(separator: ";").first))
    }

    /// The values of one attribute in every match of `pattern` (whose first capture is the value).
    static func captures(_ pattern: String, in text: String) throws -> [String] {
        let regex = try Regex(pattern)
        return text.matches(of: regex).compactMap { match in
            match.output.count > 1 ? match.output[1].substring.map(String.init) : nil
        }
    }

    /// The table row whose `<tr` carries `attribute` (up to its `</tr>`), or "" when there is none.
    static func row(_ attribute: String, in html: String) -> String {
        let parts = html.components(separatedBy: "<tr " + attribute)
        return parts.count > 1 ? parts[1].components(separatedBy: "</tr>")[0] : ""
    }

    @Test(
        "no credential is 401 on every page; a one-time link opens a session (HttpOnly, SameSite=Strict, path /center) and redirects without its token, once, within 5 minutes; the API token in a link is 401; the bearer token reads; strict CSP"
    )
    func access() async throws {
        try await withDeviceScheduler { _, devices in
            let clock = try #require(devices.scheduler.clock as? ManualNotificationClock)
            let api = ServerAPI(devices: devices, token: ServerAPITests.token)
            try await Application(router: api.router()).test(.router) { client in
                let pages = [
                    "/center", "/center/figures", "/center/topics", "/center/topics/figures", "/center/pushes/m1",
                    "/center/pushes/m1/figures", "/center/static/push.js", "/center/static/push.css",
                    "/center/static/center.css",
                ]
                for page in pages {
                    for cookie in [nil, "unotify-push-center=nope", "unotify-center=nope"] as [String?] {
                        let (status, headers, body) = try await Self.get(client, page, cookie: cookie)
                        #expect(status == .unauthorized, "\(page) \(cookie ?? "")")
                        #expect(body.contains("unotify server center"), "\(page)")
                        #expect(body.contains("<nav>") == false, "the 401 page shows no navigation")
                        #expect(headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                    }
                    let (wrong, _, _) = try await Self.get(client, page, authorization: "Bearer wrong")
                    #expect(wrong == .unauthorized)
                }
                // The API's token is no link: links are one-time tokens of their own.
                for token in ["wrong", ServerAPITests.token, ServerAPITests.token + "x", ""] {
                    let (status, headers, _) = try await Self.get(client, "/center?token=\(token)")
                    #expect(status == .unauthorized)
                    #expect(headers[.setCookie] == nil)
                }
                // Links come from the API only: without its token, none.
                let (noLink, _) = try await ServerAPITests.send(client, .post, "/v1/center-links", authorization: nil)
                #expect(noLink == .unauthorized)
                // The link: a cookie for /center only, and a redirect to the same page without the token.
                let token = try await Self.linkToken(client)
                let (opened, headers, _) = try await Self.get(client, "/center?before=abc&token=\(token)")
                #expect(opened == .seeOther)
                #expect(headers[.location] == "/center?before=abc")
                let setCookie = try #require(headers[.setCookie])
                #expect(setCookie.hasPrefix("unotify-push-center="))
                #expect(setCookie.contains("; Path=/center; HttpOnly; SameSite=Strict"))
                #expect(headers[.cacheControl] == "no-store")
                let cookie = String(try #require(setCookie.split(separator: ";").first))
                // Once: the same link again is refused.
                let (again, againHeaders, _) = try await Self.get(client, "/center?token=\(token)")
                #expect(again == .unauthorized && againHeaders[.setCookie] == nil)
                // Within 5 minutes: a link 301 s old is refused, one 299 s old opens.
                let stale = try await Self.linkToken(client)
                let fresh = try await Self.linkToken(client)
                clock.advance(by: 299)
                let (inTime, _, _) = try await Self.get(client, "/center?token=\(fresh)")
                #expect(inTime == .seeOther)
                clock.advance(by: 2)
                let (late, _, _) = try await Self.get(client, "/center?token=\(stale)")
                #expect(late == .unauthorized)
                for page in ["/center", "/center/topics", "/center/figures", "/center/static/push.js"] {
                    let (status, headers, _) = try await Self.get(client, page, cookie: cookie)
                    #expect(status == .ok, "\(page)")
                    let policy = try #require(headers[.contentSecurityPolicy])
                    #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
                    #expect(!policy.contains("unsafe-inline"))
                    #expect(headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                }
                let (page, _, html) = try await Self.get(client, "/center", cookie: cookie)
                #expect(page == .ok)
                #expect(html.contains("No pushes yet."))
                #expect(html.contains("<script src=\"/center/static/push.js\" defer></script>"))
                #expect(!html.contains("<script>") && !html.contains("style=\""))
                let (bearer, _, _) = try await Self.get(
                    client, "/center/topics", authorization: "Bearer \(ServerAPITests.token)")
                #expect(bearer == .ok)
                let (unknown, _, missing) = try await Self.get(client, "/center/pushes/nope", cookie: cookie)
                #expect(unknown == .notFound)
                #expect(missing.contains("no push has the message identifier"))
                // The JSON API still takes its token only: the cookie opens no API route, and a path that starts
                // with /center reaches no API route either.
                let (api, _, _) = try await Self.get(client, "/v1/status", cookie: cookie)
                #expect(api == .unauthorized)
                for path in ["/center/../v1/status", "/center/%2e%2e/v1/status", "/center/..%2Fv1%2Fstatus"] {
                    let (status, _, body) = try await Self.get(client, path, cookie: cookie)
                    #expect(status != .ok, "\(path)")
                    #expect(!body.contains("cluster"), "\(path)")
                }
            }
        }
    }

    @Test(
        "a push through a worker to APNs, with receipts: the list, the push page and the topics show its figures; one bar group per hour with its values; <b> escaped; the live part picks up a new receipt"
    )
    func figuresChartAndLiveRefresh() async throws {
        let side = try await DeviceSide()
        defer { side.removeFiles() }
        let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
        try await WorkerDeliveryTests().withTwoWorkers(side: side, clock: clock, running: (true, false)) { a, _, _ in
            let push = PushService(store: a.store, clock: clock)
            var tokens: [String: String] = [:]
            for index in 0..<6 {
                var device = registration("d\(index)", zone: "Europe/Paris")
                if index == 5 { device.topic = "com.example.news" }
                try await a.devices.register(device)
                tokens[device.id] = device.token
                try await push.bindTags(["<b>vip</b>"], deviceID: device.id)
            }
            side.answer(.unregistered, token: tokens["d4"]!)
            side.answer(.badDeviceToken, token: tokens["d5"]!)
            var content = NotificationPayload()
            content.title = "<b>Big</b> sale"
            content.body = "Tonight & tomorrow"
            let message = PushMessage(
                target: .tag(.tag("<b>vip</b>")), content: content, sendTime: .now, createdAt: clock.now)
            var older = NotificationPayload()
            older.title = "Earlier news"
            let earlier = PushMessage(
                target: .account("nobody"), content: older, sendTime: .now,
                createdAt: clock.now.addingTimeInterval(-60))
            try await push.send([earlier, message])
            a.fanOut.wake()
            let answered = await eventually {
                guard let statistics = try? await push.statistics(id: message.id) else { return false }
                return statistics.targeted == 6 && statistics.sent == 6
            }
            #expect(answered)
            // Receipts: d0-d2 received at 12:00:05, d0 and d1 opened at 12:10, d3 opened at 13:20 (received then too),
            // d1 chose the action "reply<b>".
            let id = message.id
            @Sendable func receipt(_ kind: PushReceipt.Kind, _ at: String, action: String? = nil) -> PushReceipt {
                PushReceipt(messageID: id, kind: kind, action: action, date: instant(at))
            }
            for device in ["d0", "d1", "d2"] {
                _ = try await push.recordReceipts(
                    [receipt(.received, "2026-11-26T12:00:05Z")], deviceID: device, token: tokens[device]!)
            }
            for device in ["d0", "d1"] {
                _ = try await push.recordReceipts(
                    [receipt(.opened, "2026-11-26T12:10:00Z")], deviceID: device, token: tokens[device]!)
            }
            _ = try await push.recordReceipts(
                [receipt(.opened, "2026-11-26T13:20:00Z")], deviceID: "d3", token: tokens["d3"]!)
            _ = try await push.recordReceipts(
                [receipt(.action, "2026-11-26T12:11:00Z", action: "reply<b>")], deviceID: "d1",
                token: tokens["d1"]!)
            let statistics = try #require(try await push.statistics(id: id))
            #expect(statistics.accepted == 4 && statistics.failedCount == 2)
            #expect(statistics.received == 4 && statistics.opened == 3)

            let api = ServerAPI(devices: a.devices, token: ServerAPITests.token)
            let knownTokens = tokens
            try await Application(router: api.router()).test(.router) { client in
                let cookie = try await Self.openSession(client)

                // The list: newest first, the figures as numbers, the small bar, the title escaped.
                let (_, _, list) = try await Self.get(client, "/center", cookie: cookie)
                let ids = try Self.captures(#"<tr data-message-id="([^"]+)""#, in: list)
                #expect(ids == [id, earlier.id])
                let row = Self.row("data-message-id=\"\(id)\"", in: list)
                for (name, value) in [
                    ("targeted", 6), ("sent", 6), ("accepted", 4), ("failed", 2), ("received", 4), ("opened", 3),
                ] {
                    #expect(row.contains("data-figure=\"\(name)\">\(value)</td>"), "\(name)")
                }
                #expect(row.contains("&lt;b&gt;Big&lt;/b&gt; sale"))
                #expect(row.contains("tags &lt;b&gt;vip&lt;/b&gt;"))
                #expect(row.contains("<svg class=\"small-bar\""))
                #expect(row.contains("<rect class=\"accepted\" data-value=\"4\" x=\"0\" y=\"0\" width=\"80\""))
                #expect(row.contains("<rect class=\"failed\" data-value=\"2\" x=\"80\" y=\"0\" width=\"40\""))
                #expect(row.contains(">done</span>"))
                #expect(!list.contains("<b>"))
                let earlierRow = Self.row("data-message-id=\"\(earlier.id)\"", in: list)
                #expect(earlierRow.contains("account nobody"))
                #expect(earlierRow.contains("data-figure=\"targeted\">0</td>"))

                // The push's page: counts, failures by reason, actions, the chart.
                let (status, _, page) = try await Self.get(client, "/center/pushes/\(id)", cookie: cookie)
                #expect(status == .ok)
                #expect(!page.contains("<b>"))
                #expect(page.contains("<h1>&lt;b&gt;Big&lt;/b&gt; sale</h1>"))
                #expect(page.contains("Tonight &amp; tomorrow"))
                #expect(page.contains("data-refresh=\"/center/pushes/\(id)/figures\""))
                for (name, value) in [
                    ("targeted", 6), ("sent", 6), ("accepted", 4), ("failed", 2), ("pending", 0), ("cancelled", 0),
                    ("received", 4), ("opened", 3), ("dismissed", 0),
                ] {
                    #expect(page.contains("<dd data-figure=\"\(name)\">\(value)</dd>"), "\(name)")
                }
                let reasons = try Self.captures(#"<tr data-reason="([^"]+)""#, in: page)
                #expect(reasons.count == 2)
                #expect(reasons.contains { $0.contains("Unregistered") })
                #expect(reasons.contains { $0.contains("BadDeviceToken") })
                #expect(try Self.captures(#"<tr data-action="([^"]+)""#, in: page) == ["reply&lt;b&gt;"])

                // One group per hour, 12:00 and 13:00, with each bar's value and a height in proportion.
                let groups = try Self.captures(#"(<g class="hour"[^>]*>)"#, in: page)
                #expect(
                    groups == [
                        #"<g class="hour" data-hour="2026-11-26T12:00:00Z" data-accepted="4" data-failed="2" data-received="3" data-opened="2">"#,
                        #"<g class="hour" data-hour="2026-11-26T13:00:00Z" data-accepted="0" data-failed="0" data-received="1" data-opened="1">"#,
                    ])
                let maximumText = try Self.captures(#"data-axis-maximum="([0-9]+)""#, in: page).first ?? ""
                let plotText = try Self.captures(#"data-plot-height="([0-9.]+)""#, in: page).first ?? ""
                let maximum = try #require(Double(maximumText))
                let plot = try #require(Double(plotText))
                #expect(maximum == 5 && plot == 186)
                let bars = try Regex(
                    #"<rect class="bar (\w+)" data-series="\w+" data-value="(\d+)" x="[0-9.]+" y="([0-9.]+)" width="[0-9.]+" height="([0-9.]+)"><title>([^<]*)</title>"#
                )
                let drawn = page.matches(of: bars).map { match in
                    (
                        String(match.output[1].substring!), Int(match.output[2].substring!)!,
                        Double(match.output[3].substring!)!, Double(match.output[4].substring!)!,
                        String(match.output[5].substring!)
                    )
                }
                #expect(
                    drawn.map(\.0) == [
                        "accepted", "failed", "received", "opened", "accepted", "failed", "received", "opened",
                    ])
                #expect(drawn.map(\.1) == [4, 2, 3, 2, 0, 0, 1, 1])
                for (series, value, y, height, title) in drawn {
                    #expect(abs(height - plot * Double(value) / maximum) < 0.06, "\(series) \(value) \(height)")
                    #expect(abs(y + height - (34 + plot)) < 0.06, "bars stand on the axis")
                    #expect(title.hasSuffix(": \(value) \(series)"))
                }
                #expect(drawn[0].4 == "26 Nov 12:00 UTC: 4 accepted")
                for label in ["accepted", "failed", "received", "opened"] {
                    #expect(page.contains("<text class=\"legend\" x=\"") && page.contains(">\(label)</text>"))
                }

                // Per topic: com.example.app has d0-d4 (4 accepted, d4's 410), com.example.news d5 (its 400).
                let (_, _, topics) = try await Self.get(client, "/center/topics", cookie: cookie)
                #expect(
                    try Self.captures(#"<tr data-topic="([^"]+)""#, in: topics) == [
                        "com.example.app", "com.example.news",
                    ])
                let app = Self.row("data-topic=\"com.example.app\"", in: topics)
                #expect(
                    app.contains("data-figure=\"accepted\">4</td>") && app.contains("data-figure=\"failed\">1</td>"))
                // Its receipts are the push's (every receipt came from com.example.app's devices).
                #expect(
                    app.contains("data-figure=\"received\">4</td>") && app.contains("data-figure=\"opened\">3</td>"))
                let news = Self.row("data-topic=\"com.example.news\"", in: topics)
                #expect(
                    news.contains("data-figure=\"accepted\">0</td>") && news.contains("data-figure=\"failed\">1</td>"))
                #expect(news.contains("data-figure=\"received\">0</td>"))

                // The live part: what push.js fetches every few seconds; a new receipt shows at the next fetch.
                let (_, _, before) = try await Self.get(client, "/center/pushes/\(id)/figures", cookie: cookie)
                #expect(before.contains("<dd data-figure=\"opened\">3</dd>"))
                #expect(!before.contains("<html"))
                _ = try await push.recordReceipts(
                    [receipt(.opened, "2026-11-26T13:30:00Z")], deviceID: "d2", token: knownTokens["d2"]!)
                let (_, _, after) = try await Self.get(client, "/center/pushes/\(id)/figures", cookie: cookie)
                #expect(after.contains("<dd data-figure=\"opened\">4</dd>"))
                #expect(
                    after.contains(
                        "data-hour=\"2026-11-26T13:00:00Z\" data-accepted=\"0\" data-failed=\"0\" data-received=\"1\" data-opened=\"2\""
                    ))
                let (_, _, rows) = try await Self.get(client, "/center/figures", cookie: cookie)
                #expect(rows.contains("data-figure=\"opened\">4</td>"))
                let (_, headers, script) = try await Self.get(client, "/center/static/push.js", cookie: cookie)
                #expect(headers[.contentType]?.hasPrefix("text/javascript") == true)
                #expect(script.contains("data-refresh") && script.contains("innerHTML"))
            }
        }
        await side.stop()
    }

    @Test("the list pages by 25, newest first, with Older and Newest links; an unknown cursor is an empty page")
    func paging() async throws {
        try await withDeviceScheduler { store, devices in
            let clock = ManualNotificationClock(now: Self.start, timeZone: TimeZone(identifier: "UTC")!)
            let push = PushService(store: store, clock: clock)
            var content = NotificationPayload()
            content.title = "n"
            let messages = (0..<30).map { index in
                PushMessage(
                    id: String(format: "m%02d", index), target: .all, content: content, sendTime: .now,
                    createdAt: Self.start.addingTimeInterval(Double(index)))
            }
            try await push.send(messages)
            let api = ServerAPI(devices: devices, token: ServerAPITests.token)
            try await Application(router: api.router()).test(.router) { client in
                let cookie = try await Self.openSession(client)
                let (_, _, first) = try await Self.get(client, "/center", cookie: cookie)
                let firstIDs = try Self.captures(#"<tr data-message-id="([^"]+)""#, in: first)
                #expect(firstIDs == (5..<30).reversed().map { String(format: "m%02d", $0) })
                #expect(first.contains("<a href=\"/center?before=m05\">Older</a>"))
                #expect(!first.contains(">Newest</a>"))
                let (_, _, second) = try await Self.get(client, "/center?before=m05", cookie: cookie)
                #expect(
                    try Self.captures(#"<tr data-message-id="([^"]+)""#, in: second) == [
                        "m04", "m03", "m02", "m01", "m00",
                    ])
                #expect(second.contains("<a href=\"/center\">Newest</a>") && !second.contains(">Older</a>"))
                #expect(second.contains("data-refresh=\"/center/figures?before=m05\""))
                let (_, _, none) = try await Self.get(client, "/center?before=ghost", cookie: cookie)
                #expect(none.contains("No older pushes."))
                #expect(try Self.captures(#"<tr data-message-id="([^"]+)""#, in: none).isEmpty)
            }
        }
    }
}
