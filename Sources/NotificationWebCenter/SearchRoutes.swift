import Foundation
import Hummingbird
import NotificationModel

/// The Search page's route: `GET /search?q=…` across the delivered notifications and the history of every app.
struct SearchRoutes: Sendable {
    let center: WebCenter

    /// `GET /search?q=…`. The query string is decoded strictly (a malformed escape is a 400); an empty query shows
    /// the form alone, one over ``SearchQuery/maximumLength`` characters is a 400.
    func page(request: Request, context: WebCenterRequestContext) async throws -> Response {
        let fields = try FormFields(parsing: request.uri.query ?? "")
        let query = try SearchQuery(parsing: fields["q"] ?? "")
        var delivered: [DeliveredNotification] = []
        var history: [HistoryEntry] = []
        var historySearched = 0
        if !query.words.isEmpty {
            for app in try await center.knownApps() {
                delivered += try await center.scheduler.deliveredNotifications(appID: app).filter {
                    query.matches(SearchPage.fields(of: $0))
                }
            }
            delivered.sort {
                ($0.date, $0.appID, $0.historyID ?? 0, $0.identifier) > ($1.date, $1.appID, $1.historyID ?? 0, $1.identifier)
            }
            let newest = try await center.scheduler.history(appID: nil, limit: center.configuration.historyLimit)
            historySearched = newest.count
            history = newest.filter { query.matches(SearchPage.fields(of: $0)) }
        }
        let page = SearchPage(
            query: query, delivered: delivered, history: history,
            historySearched: historySearched, format: center.format)
        return HTMLPage.response(
            HTMLPage.render(
                title: query.text.isEmpty ? "Search" : "Search: \(query.text)", current: nil,
                csrfToken: context.session?.csrfToken, body: page.render(), searchText: query.text,
                unread: try await center.unreadTotal()))
    }
}
