import Foundation
import NotificationEngine
import NotificationModel

/// Which delivered notifications a person has read in the center, kept by the daemon in the store it already has
/// (not in the browser), so every browser and every restart of the daemon sees the same unread count.
///
/// A notification is unread from its delivery until it is marked read in the center (its Mark read button, Mark
/// all read, or an action whose content extension keeps it listed), or until it leaves the delivered list (opened,
/// acted on or dismissed in the center, answered on the desktop, removed by its app): the unread count is the number
/// of delivered notifications not marked read.
///
/// The marks are a JSON list per app in the store's metadata (key `webCenter.read.<app>`, as launch and service
/// extension commands are kept), so neither store needs a migration. Each notification is named by its history
/// entry's identifier (its delivery, unique for the store's life), or by its identifier and delivery instant for
/// one without. Marking prunes the marks of notifications no longer delivered, so the list never outgrows the
/// delivered list. Writes are serialized by this actor; two daemons on one store could lose each other's marks.
///
/// ```swift
/// let marks = ReadMarks(store: scheduler.store)
/// try await marks.markRead(appID: "com.example.chat", identifiers: ["n1"], delivered: delivered)
/// let unread = try await marks.unread(appID: "com.example.chat", delivered: delivered)   // the others
/// ```
actor ReadMarks {
    private let store: any NotificationStore

    /// Creates the marks over a store.
    init(store: any NotificationStore) {
        self.store = store
    }

    /// The metadata key of an app's marks.
    static func key(appID: String) -> String { "webCenter.read.\(appID)" }

    /// How a delivered notification is named among the marks.
    static func mark(_ notification: DeliveredNotification) -> String {
        if let historyID = notification.historyID { return "h\(historyID)" }
        return "n\(notification.date.timeIntervalSince1970)/\(notification.identifier)"
    }

    /// The marks stored for an app.
    func marks(appID: String) async throws -> Set<String> {
        guard let stored = try await store.metadata(Self.key(appID: appID)), !stored.isEmpty,
            let marks = try? JSONDecoder().decode([String].self, from: Data(stored.utf8))
        else { return [] }
        return Set(marks)
    }

    /// The app's delivered notifications that are not marked read.
    /// - Parameter delivered: The app's delivered notifications, as the engine lists them.
    func unread(appID: String, delivered: [DeliveredNotification]) async throws -> [DeliveredNotification] {
        let marks = try await marks(appID: appID)
        return delivered.filter { !marks.contains(Self.mark($0)) }
    }

    /// Marks notifications read; `identifiers == nil` marks all of the app's.
    /// - Parameters:
    ///   - delivered: The app's delivered notifications, as the engine lists them now.
    /// - Returns: How many notifications were unread and are read now.
    /// - Throws: ``WebCenterError`` (`notFound`) for an identifier that is not delivered; what the store throws.
    @discardableResult
    func markRead(appID: String, identifiers: [String]?, delivered: [DeliveredNotification]) async throws -> Int {
        if let identifiers {
            for identifier in identifiers where !delivered.contains(where: { $0.identifier == identifier }) {
                throw WebCenterError(.notFound, "\(appID) has no delivered notification '\(identifier)'")
            }
        }
        let old = try await marks(appID: appID)
        let chosen = delivered.filter { identifiers?.contains($0.identifier) ?? true }
        let current = Set(delivered.map(Self.mark))
        let new = old.intersection(current).union(chosen.map(Self.mark))
        if new != old {
            let json = String(decoding: try JSONEncoder().encode(new.sorted()), as: UTF8.self)
            try await store.setMetadata(Self.key(appID: appID), json)
        }
        return new.subtracting(old).count
    }
}
