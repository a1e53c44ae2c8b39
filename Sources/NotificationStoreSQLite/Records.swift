import Foundation
import GRDB
import NotificationEngine
import NotificationLocation
import NotificationModel

/// JSON for the payload columns: the engine's `StoredJSON` (the model types are `Codable`, and JSON keeps the store
/// readable with `sqlite3`), which the PostgreSQL store writes too.
typealias JSON = StoredJSON

/// A row of `pending`.
struct PendingRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "pending"
    var id: Int64?
    var app: String
    var identifier: String
    var spec: Data
    var addedAt: Double
    var nextFire: Double?
    var floating: Bool
    var claimUntil: Double?
    var claimOwner: Int32?
    /// For floating calendar triggers: the plan they follow (their fire date lives there).
    var calendarKey: String?
    /// For floating calendar triggers: the plan instant they last fired for.
    var firedFor: Double?
    /// For location triggers: the `RegionState` raw value at the last deciding fix; `nil` for other triggers.
    var regionState: String?

    init(_ request: PendingRequest, encoder: JSONEncoder = JSON.makeEncoder()) throws {
        app = request.appID
        identifier = request.identifier
        // The common specs without JSONEncoder (the same bytes, a fraction of the CPU): see FastSpecJSON.
        spec = try FastSpecJSON.encode(request.spec) ?? encoder.encode(request.spec)
        addedAt = request.addedAt.timeIntervalSince1970
        floating = request.isFloating
        calendarKey = try Self.calendarKey(request)
        nextFire = calendarKey == nil ? request.nextFireDate?.timeIntervalSince1970 : nil
        if case .location? = request.spec.trigger { regionState = RegionState.unknown.rawValue }
    }

    /// The plan a floating calendar trigger follows: its app, components and matching policy.
    static func calendarKey(_ request: PendingRequest) throws -> String? {
        guard request.isFloating, case .calendar(let components, _, let matching)? = request.spec.trigger else { return nil }
        return request.appID + "\u{1F}" + matching.rawValue + "\u{1F}" + String(decoding: try JSON.encode(components), as: UTF8.self)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    func request() throws -> PendingRequest {
        PendingRequest(
            // Without JSONDecoder when the spec has the shape FastSpecJSON writes (every claim decodes its requests).
            appID: app, spec: try FastSpecJSON.decodeSpec(spec) ?? JSON.decode(RequestSpec.self, from: spec),
            addedAt: Date(timeIntervalSince1970: addedAt), nextFireDate: nextFire.map(Date.init(timeIntervalSince1970:)),
            revision: id ?? 0)
    }
}

/// A row of `delivered`.
struct DeliveredRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "delivered"
    var app: String
    var identifier: String
    var payload: Data
    var date: Double
    var historyID: Int64?

    init(_ notification: DeliveredNotification) throws {
        app = notification.appID
        identifier = notification.identifier
        // Without JSONEncoder when FastSpecJSON covers its spec (the same bytes): every fire that lists one pays this.
        payload = try FastSpecJSON.encode(notification) ?? JSON.encode(notification)
        date = notification.date.timeIntervalSince1970
        historyID = notification.historyID
    }

    /// Inserts the row, replacing the app's delivered notification of the same identifier, through a statement
    /// prepared once per connection and bound directly (see ``HistoryRecord/inserted(_:)``).
    ///
    /// A replacement updates the existing row in place (`ON CONFLICT … DO UPDATE`, as the PostgreSQL store does), where
    /// `INSERT OR REPLACE` deleted it and inserted a new one: that touched the row's old page, the table's last page and
    /// the `(app, identifier)` index twice, for every push with a collapse identifier already listed and every repeating
    /// request's fire. Measured (unotify-server-bench figure 4, 20,000 pushes over 5,000 collapse identifiers,
    /// docs/benchmarks.md, session 14): `pwrite` calls per run ×0.83-0.85 (the WAL frames of the pages written); the
    /// CPU per push and the pushes per second show no difference on the shared test machine. The list keeps its order:
    /// it is read by date, then by history entry (the order a replacement's new row gave before).
    func replace(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO delivered (app, identifier, payload, date, historyID) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, identifier) DO UPDATE SET
                    payload = excluded.payload, date = excluded.date, historyID = excluded.historyID
                """
        ).execute(arguments: [app, identifier, payload, date, historyID])
    }

    func notification() throws -> DeliveredNotification {
        var notification = try JSON.decode(DeliveredNotification.self, from: payload)
        notification.historyID = historyID
        return notification
    }
}

/// A row of `app`.
struct AppRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "app"
    var id: String
    var authorization: Int
    var grantedOptions: Int64
    var badge: Int

    init(_ state: AppState) {
        id = state.appID
        authorization = state.authorization.rawValue
        grantedOptions = Int64(state.grantedOptions.rawValue)
        badge = state.badge
    }

    var state: AppState {
        AppState(
            appID: id, authorization: AuthorizationStatus(rawValue: authorization) ?? .notDetermined,
            grantedOptions: AuthorizationSet(rawValue: UInt(grantedOptions)), badge: badge)
    }
}

/// A row of `history`.
struct HistoryRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "history"
    var id: Int64?
    var app: String
    var requestIdentifier: String
    var title: String
    var due: Double?
    var actedAt: Double
    var presenter: String
    var presentation: Int64
    var outcome: String
    var detail: String?

    init(_ entry: HistoryEntry) throws {
        id = entry.id
        app = entry.appID
        requestIdentifier = entry.requestIdentifier
        title = entry.title
        due = entry.dueDate?.timeIntervalSince1970
        actedAt = entry.actedAt.timeIntervalSince1970
        presenter = entry.presenter
        presentation = Int64(entry.presentation.rawValue)
        outcome = entry.outcome.rawValue
        detail = entry.detail
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Inserts the row through a statement prepared once per connection and bound directly (GRDB's record
    /// persistence encodes every row through `Encodable` first: 2% of unotify-server-bench figure 4's samples, with
    /// the delivered row's), and returns its `id`: the one it has, or the one SQLite gives a row without.
    func inserted(_ db: Database) throws -> Int64 {
        try db.cachedStatement(
            sql: """
                INSERT INTO history (id, app, requestIdentifier, title, due, actedAt, presenter, presentation, outcome,
                detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [id, app, requestIdentifier, title, due, actedAt, presenter, presentation, outcome, detail])
        return id ?? db.lastInsertedRowID
    }

    func entry() -> HistoryEntry {
        HistoryEntry(
            id: id, appID: app, requestIdentifier: requestIdentifier, title: title,
            dueDate: due.map(Date.init(timeIntervalSince1970:)), actedAt: Date(timeIntervalSince1970: actedAt),
            presenter: presenter, presentation: PresentationSet(rawValue: UInt(presentation)),
            outcome: HistoryEntry.Outcome(rawValue: outcome) ?? .delivered, detail: detail)
    }
}

// A row this version cannot decode (written by a newer version, or damaged) is left out of what a read returns
// rather than failing it: one unreadable row must never hide the others, nor stop deliveries or removals. It stays
// in the store (removals delete it with the rest), and `unotify store check` finds real damage.
extension Sequence<PendingRecord> {
    /// The requests of the rows that decode.
    func readableRequests() -> [PendingRequest] { compactMap { try? $0.request() } }
}

extension Sequence<DeliveredRecord> {
    /// The notifications of the rows that decode.
    func readableNotifications() -> [DeliveredNotification] { compactMap { try? $0.notification() } }
}
