import Foundation
import Hummingbird
import NotificationStorePostgres
import NotificationWebCenter

// The push statistics pages (issue 20, docs/push-service.md "In the browser"): `/center` of a worker's API, in the
// web center's look and behind the web center's access rules: a one-time link (`POST /v1/center-links`) opens a
// session; any client's bearer token of the API reads too.
extension ServerAPI {
    /// The pushes on one page of the list.
    static let centerPageSize = 25
    /// The session cookie of the pages: not the web center's (`unotify-center`), as browsers share cookies between
    /// the ports of one host.
    static let centerCookieName = "unotify-push-center"
    /// The most topics on the topics page.
    static let centerTopicLimit = 200

    /// Whether a path is one of the pages' (``ServerAPIGuard`` leaves them to their own access rules).
    static func isCenterPath(_ path: String) -> Bool { path == "/center" || path.hasPrefix("/center/") }

    /// Adds `POST /v1/center-links` (behind the bearer token like every API route) and the `/center` group: the
    /// pages, their figures alone (what `push.js` fetches again) and their assets.
    func addCenterRoutes(to router: Router<ServerAPIRequestContext>) {
        let credentials = credentials
        let links = centerLinks
        let clock = devices.scheduler.clock
        router.post("/v1/center-links") { _, _ in
            let link = links.issue(at: clock.now)
            return Self.json(
                .created,
                [
                    "path": "/center?token=" + link.token, "token": link.token,
                    "expiresAt": link.expiresAt.formatted(.iso8601),
                ])
        }
        let group = router.group("center", context: PushCenterRequestContext.self)
        group.add(
            middleware: WebCenterHeaders(logger: logger) { title, body, showsNavigation in
                PushCenterPage.document(title: title, current: nil, body: body, showsNavigation: showsNavigation)
            })
        group.add(
            middleware: WebCenterAccess(
                opensSession: { links.redeem($0, at: clock.now) },
                // A client's token opens the pages when it may read (``ServerAPIScopes/read``).
                acceptsBearer: { credentials.identify(presenting: $0)?.scopes.contains(.read) == true },
                sessions: centerSessions,
                maximumBodySize: configuration.maximumBodySize, cookieName: Self.centerCookieName,
                cookiePath: "/center", linkCommand: "unotify server center"))
        group.get("static/center.css") { _, _ in WebCenterAssets.response(WebCenterAssets.css, type: "text/css") }
        group.get("static/push.css") { _, _ in WebCenterAssets.response(PushCenterAssets.css, type: "text/css") }
        group.get("static/push.js") { _, _ in
            WebCenterAssets.response(PushCenterAssets.script, type: "text/javascript")
        }
        group.get { request, _ in
            let before = request.uri.queryParameters["before"].map(String.init)
            let (rows, next) = try await centerPushes(before: before)
            return HTMLPage.response(PushCenterPage.pushes(rows, before: before, next: next))
        }
        group.get("figures") { request, _ in
            let before = request.uri.queryParameters["before"].map(String.init)
            let (rows, _) = try await centerPushes(before: before)
            return HTMLPage.response(PushCenterPage.pushTable(rows, before: before))
        }
        group.get("pushes/:messageId") { _, context in
            let (push, statistics) = try await centerPush(context)
            return HTMLPage.response(PushCenterPage.push(push, statistics))
        }
        group.get("pushes/:messageId/figures") { _, context in
            let (push, statistics) = try await centerPush(context)
            return HTMLPage.response(PushCenterPage.pushFigures(push, statistics))
        }
        group.get("topics") { _, _ in HTMLPage.response(PushCenterPage.topics(try await centerTopics())) }
        group.get("topics/figures") { _, _ in
            HTMLPage.response(PushCenterPage.topicTable(try await centerTopics()))
        }
    }

    /// A page of pushes with their statistics, and the cursor of the next page.
    func centerPushes(before: String?) async throws -> ([(PushMessage, PushStatistics)], next: String?) {
        let store = devices.store
        let page = try await store.newestPushes(limit: Self.centerPageSize + 1, before: before)
        var rows: [(PushMessage, PushStatistics)] = []
        for push in page.prefix(Self.centerPageSize) {
            guard let statistics = try await store.pushStatistics(id: push.id) else { continue }
            rows.append((push, statistics))
        }
        return (rows, page.count > Self.centerPageSize ? page[Self.centerPageSize - 1].id : nil)
    }

    /// The push of the path's `messageId` and its statistics.
    func centerPush(_ context: PushCenterRequestContext) async throws -> (PushMessage, PushStatistics) {
        let raw = try context.parameters.require("messageId")
        guard let id = raw.removingPercentEncoding else {
            throw WebCenterError(.badRequest, "the message identifier in the path is not valid percent-encoding")
        }
        guard let push = try await devices.store.push(id: id),
            let statistics = try await devices.store.pushStatistics(id: id)
        else { throw WebCenterError(.notFound, "no push has the message identifier '\(id)'") }
        return (push, statistics)
    }

    /// Each topic's sums, by topic.
    func centerTopics() async throws -> [(String, PushStatistics)] {
        var rows: [(String, PushStatistics)] = []
        for topic in try await devices.store.deviceTopics(limit: Self.centerTopicLimit) {
            rows.append((topic, try await devices.store.pushStatistics(topic: topic)))
        }
        return rows
    }
}
