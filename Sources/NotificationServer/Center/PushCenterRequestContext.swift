import Hummingbird
import NotificationWebCenter

/// The request context of the push statistics pages (`/center` of a worker's API): made from the API's context for
/// the routes of that group, it carries what the web center's access rules find (the browser session; forms, which
/// these read-only pages do not take).
struct PushCenterRequestContext: ChildRequestContext, WebCenterSessionContext {
    var coreContext: CoreRequestContextStorage
    /// The session of the cookie; `nil` for bearer requests.
    var session: WebCenterSessions.Session?
    /// The checked form fields of a POST (these pages take none).
    var form: FormFields

    /// Hummingbird makes one per request of the `/center` group, from the API's.
    init(context: ServerAPIRequestContext) throws {
        coreContext = context.coreContext
        form = try FormFields(parsing: "")
    }
}
