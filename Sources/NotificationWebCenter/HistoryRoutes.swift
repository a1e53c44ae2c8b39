import Foundation
import Hummingbird
import NotificationModel

/// The History page's route: `GET /history?app=…&outcome=…`.
struct HistoryRoutes: Sendable {
    let center: WebCenter

    func page(request: Request, context: WebCenterRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let app = query["app"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        var outcome: HistoryEntry.Outcome?
        if let name = query["outcome"].map(String.init), !name.isEmpty {
            guard let known = HistoryEntry.Outcome(rawValue: name) else {
                let names = HistoryEntry.Outcome.allCases.map(\.rawValue).joined(separator: ", ")
                throw WebCenterError(.badRequest, "unknown outcome '\(name)' (one of: \(names))")
            }
            outcome = known
        }
        var entries = try await center.scheduler.history(appID: app, limit: center.configuration.historyLimit)
        if let outcome { entries = entries.filter { $0.outcome == outcome } }
        let page = HistoryPage(
            entries: entries, apps: try await center.knownApps(), selectedApp: app, selectedOutcome: outcome,
            format: center.format)
        return HTMLPage.response(
            HTMLPage.render(
                title: "History", current: .history, csrfToken: context.session?.csrfToken, body: page.render(),
                unread: try await center.unreadTotal()))
    }
}
