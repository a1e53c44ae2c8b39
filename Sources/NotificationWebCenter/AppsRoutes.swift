import Foundation
import Hummingbird
import NotificationModel

/// The Apps page's routes: the page, the settings form (the engine's `setAuthorization`, as `unotify authorize`)
/// and clearing the badge (the engine's `setBadge`, as `unotify badge`).
struct AppsRoutes: Sendable {
    let center: WebCenter

    /// `GET /apps`.
    func page(context: WebCenterRequestContext) async throws -> Response {
        let scheduler = center.scheduler
        let pending = try await scheduler.store.pendingCounts()
        var apps: [AppsPage.App] = []
        for app in try await center.knownApps() {
            apps.append(
                .init(
                    state: try await scheduler.appState(appID: app),
                    categories: try await scheduler.categories(appID: app),
                    pendingCount: pending[app] ?? 0,
                    deliveredCount: try await scheduler.deliveredNotifications(appID: app).count))
        }
        let page = AppsPage(apps: apps, csrfToken: context.session?.csrfToken ?? "")
        return HTMLPage.response(
            HTMLPage.render(
                title: "Apps", current: .apps, csrfToken: context.session?.csrfToken, body: page.render(),
                unread: try await center.unreadTotal()))
    }

    /// `POST /apps/settings` (`app`; `allow`, `alert`, `sound`, `badge` present when checked). Allowing keeps a
    /// provisional authorization provisional; turning it off denies, as Settings does.
    func settings(context: WebCenterRequestContext) async throws -> Response {
        let form = context.form
        let app = try form.required("app")
        try await requireKnown(app)
        var options: AuthorizationSet = []
        for option in AppsPage.options where form[option.name] == "on" { options.insert(option.option) }
        let current = try await center.scheduler.appState(appID: app)
        if form["allow"] == "on" {
            let status: AuthorizationStatus = current.authorization == .provisional ? .provisional : .authorized
            if status == .provisional { options.insert(.provisional) }
            try await center.scheduler.setAuthorization(appID: app, status: status, options: options)
        } else {
            try await center.scheduler.setAuthorization(appID: app, status: .denied, options: [])
        }
        return .redirect(to: "/apps", type: .normal)
    }

    /// `POST /apps/badge` (`app`, `count`).
    func badge(context: WebCenterRequestContext) async throws -> Response {
        let app = try context.form.required("app")
        try await requireKnown(app)
        guard let count = Int(try context.form.required("count")), count >= 0 else {
            throw WebCenterError(.badRequest, "a badge count is a number from 0")
        }
        try await center.scheduler.setBadge(appID: app, count: count)
        return .redirect(to: "/apps", type: .normal)
    }

    private func requireKnown(_ app: String) async throws {
        guard try await center.knownApps().contains(app) else {
            throw WebCenterError(.notFound, "no app '\(app)' has used notifications")
        }
    }
}
