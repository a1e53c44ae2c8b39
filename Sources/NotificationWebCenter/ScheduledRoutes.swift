import Foundation
import Hummingbird
import NotificationModel

/// The Scheduled page's routes: the page and removing a pending request (the engine's `removePending`, as
/// `unotify remove` does).
struct ScheduledRoutes: Sendable {
    let center: WebCenter

    /// `GET /scheduled`.
    func page(context: WebCenterRequestContext) async throws -> Response {
        let scheduler = center.scheduler
        let now = scheduler.clock.now
        let until = now.addingTimeInterval(ScheduledPage.span)
        var items: [ScheduledPage.Item] = []
        for app in try await center.knownApps() {
            for request in try await scheduler.pendingRequests(appID: app) {
                items.append(
                    .init(
                        request: request,
                        fireDates: ScheduledPage.fireDates(
                            of: request, until: until, limit: 500, calendar: scheduler.clock.calendar)))
            }
        }
        let page = ScheduledPage(
            items: items, now: now, csrfToken: context.session?.csrfToken ?? "", format: center.format)
        return HTMLPage.response(
            HTMLPage.render(
                title: "Scheduled", current: .scheduled, csrfToken: context.session?.csrfToken, body: page.render(),
                unread: try await center.unreadTotal()))
    }

    /// `POST /scheduled/remove` (`app`, `id`).
    func remove(context: WebCenterRequestContext) async throws -> Response {
        let app = try context.form.required("app")
        let identifier = try context.form.required("id")
        let pending = try await center.scheduler.pendingRequests(appID: app)
        guard pending.contains(where: { $0.identifier == identifier }) else {
            throw WebCenterError(.notFound, "\(app) has no pending request '\(identifier)'")
        }
        try await center.scheduler.removePending(appID: app, identifiers: [identifier])
        return .redirect(to: "/scheduled", type: .normal)
    }
}
