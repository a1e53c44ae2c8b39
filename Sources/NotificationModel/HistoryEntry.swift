import Foundation

/// One line of the delivery history: a notification that fell due, when it was due, when it was delivered,
/// how it was presented and what became of it.
public struct HistoryEntry: Sendable, Hashable, Codable {
    public var id: Int64?
    public var appID: String
    public var requestIdentifier: String
    public var title: String
    /// The instant it was due; `nil` for a request that never had one.
    public var dueDate: Date?
    /// The instant the engine acted on it (delivered, skipped or discarded).
    public var actedAt: Date
    /// What showed it: a presenter's name, `app` for the app's own delegate, or `none`.
    public var presenter: String
    public var presentation: PresentationSet
    public var outcome: Outcome
    /// The action identifier or the user's text for responses; the reason for skips and discards.
    public var detail: String?

    public init(
        id: Int64? = nil, appID: String, requestIdentifier: String, title: String, dueDate: Date?, actedAt: Date,
        presenter: String, presentation: PresentationSet, outcome: Outcome, detail: String? = nil
    ) {
        self.id = id
        self.appID = appID
        self.requestIdentifier = requestIdentifier
        self.title = title
        self.dueDate = dueDate
        self.actedAt = actedAt
        self.presenter = presenter
        self.presentation = presentation
        self.outcome = outcome
        self.detail = detail
    }

    /// How late it was delivered, in seconds.
    public var lateness: TimeInterval? { dueDate.map { actedAt.timeIntervalSince($0) } }

    /// What became of a notification.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// Shown (or silenced by the app's foreground decision) and still delivered.
        case delivered
        /// The app's `willPresent` chose not to show it.
        case silenced
        /// Not shown because the app is not authorized to alert.
        case unauthorized
        /// The user chose an action (detail: its identifier).
        case action
        /// The user dismissed it.
        case dismissed
        /// The app removed it from the delivered list.
        case removed
        /// A missed fire that its policy said to skip.
        case skipped
        /// Discarded because the app had more pending requests than the cap.
        case discarded
    }
}
