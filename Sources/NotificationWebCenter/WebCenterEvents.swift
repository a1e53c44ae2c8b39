import Foundation
import NotificationEngine
import NotificationModel

/// Live updates as Server-Sent Events (`GET /events`): each new history entry (a delivery, a skip, a discard) is an
/// event `delivery` whose `id` is the entry's identifier in the store, the daemon's durable sequence; any other
/// change (a response, a removal, a new or removed pending request) is an event `change` without an id. The unread
/// counts (``ReadMarks``) open the stream as an event `unread` (`{"apps":{"com.example.chat":2},"total":2}`), and
/// come again whenever they change (a delivery, a notification marked read or answered anywhere).
///
/// A browser that reconnects sends `Last-Event-ID`; every entry after it is sent first, so nothing that arrived
/// meanwhile is lost (as long as it is among the newest ``WebCenterConfiguration/historyLimit`` entries).
///
/// The engine has no change feed of its own: the store is read every ``WebCenterConfiguration/eventPollInterval``
/// on the engine's clock, a small read (the newest ``window`` history entries and the pending counts).
///
/// ```swift
/// var (cursor, backlog) = try await events.start(after: 41)   // entries 42… at once
/// let next = try await events.next(&cursor)                    // waits for the next change
/// ```
struct WebCenterEvents: Sendable {
    let scheduler: NotificationScheduler
    let readMarks: ReadMarks
    let pollInterval: TimeInterval
    let historyLimit: Int
    /// Set when the center stops: ``next(_:)`` then throws `CancellationError`.
    let stopping: StopFlag
    /// A comment line is sent after this long without events, so proxies and browsers keep the connection.
    static let heartbeat: TimeInterval = 15
    /// How many of the newest history entries a poll reads (more only when more arrived since the last poll).
    static let window = 200

    /// Where a stream is: the newest entry sent and what the state looked like.
    struct Cursor: Sendable {
        var lastID: Int64
        var fingerprint: Int
        var quietSince: Date
        /// The unread counts last sent.
        var unread: [String: Int]
    }

    /// What an `unread` event says: each app's unread count (apps without any left out) and their sum.
    struct Unread: Codable, Sendable, Hashable {
        var apps: [String: Int]
        var total: Int
    }

    /// What one entry says to the page.
    struct Delivery: Codable, Sendable {
        var id: Int64
        var app: String
        var request: String
        var title: String
        var outcome: String
        var at: Date
    }

    /// Opens a stream: the events after `lastEventID` (none when it is `nil`: the stream starts now), a `retry`, and
    /// the unread counts as they are now.
    func start(after lastEventID: Int64?) async throws -> (Cursor, String) {
        let (entries, fingerprint) = try await snapshot(limit: lastEventID == nil ? Self.window : historyLimit)
        let newest = entries.compactMap(\.id).max() ?? 0
        var text = "retry: 2000\n\n"
        if let lastEventID {
            text += try events(for: entries, after: lastEventID)
        }
        let unread = try await WebCenter.unreadCounts(scheduler: scheduler, readMarks: readMarks)
        text += try unreadEvent(unread)
        return (
            Cursor(
                lastID: max(newest, lastEventID ?? 0), fingerprint: fingerprint, quietSince: scheduler.clock.now,
                unread: unread),
            text
        )
    }

    /// Waits on the engine's clock until there is something to send, and returns it: new entries, a change, or a
    /// heartbeat comment.
    /// - Throws: `CancellationError` when the center stops or the connection's task is cancelled.
    func next(_ cursor: inout Cursor) async throws -> String {
        while true {
            try await waitForPoll()
            var (entries, fingerprint) = try await snapshot(limit: Self.window)
            if entries.count == Self.window, let oldest = entries.last?.id, oldest > cursor.lastID + 1 {
                // More arrived since the last poll than one window holds: read back as far as a resume would.
                (entries, fingerprint) = try await snapshot(limit: historyLimit)
            }
            var text = try events(for: entries, after: cursor.lastID)
            cursor.lastID = max(cursor.lastID, entries.compactMap(\.id).max() ?? 0)
            if text.isEmpty, fingerprint != cursor.fingerprint { text = "event: change\ndata: {}\n\n" }
            cursor.fingerprint = fingerprint
            let unread = try await WebCenter.unreadCounts(scheduler: scheduler, readMarks: readMarks)
            if unread != cursor.unread {
                text += try unreadEvent(unread)
                cursor.unread = unread
            }
            let now = scheduler.clock.now
            if text.isEmpty, now.timeIntervalSince(cursor.quietSince) >= Self.heartbeat { text = ": still here\n\n" }
            if !text.isEmpty {
                cursor.quietSince = now
                return text
            }
        }
    }

    /// Sleeps one poll interval on the engine's clock.
    /// - Throws: `CancellationError` at once when the center stops or the task is cancelled.
    private func waitForPoll() async throws {
        let deadline = scheduler.clock.now.addingTimeInterval(pollInterval)
        let clock = scheduler.clock
        let stopping = stopping
        let stopped = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await clock.sleep(until: deadline)
                return false
            }
            group.addTask {
                await stopping.wait()
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? true
        }
        if stopped || stopping.isSet { throw CancellationError() }
    }

    /// The `unread` event of these counts.
    private func unreadEvent(_ counts: [String: Int]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(
            decoding: try encoder.encode(Unread(apps: counts, total: counts.values.reduce(0, +))), as: UTF8.self)
        return "event: unread\ndata: \(json)\n\n"
    }

    /// The events of the entries after `lastID`, oldest first.
    private func events(for entries: [HistoryEntry], after lastID: Int64) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = ""
        for entry in entries.reversed() {
            guard let id = entry.id, id > lastID else { continue }
            let delivery = Delivery(
                id: id, app: entry.appID, request: entry.requestIdentifier, title: entry.title,
                outcome: entry.outcome.rawValue, at: entry.actedAt)
            // JSON on one line: JSONEncoder escapes line breaks inside strings.
            let json = String(decoding: try encoder.encode(delivery), as: UTF8.self)
            text += "id: \(id)\nevent: delivery\ndata: \(json)\n\n"
        }
        return text
    }

    /// The newest `limit` history entries (newest first) and a fingerprint of what the pages show: the outcomes of
    /// the newest ``window`` entries and the pending counts.
    private func snapshot(limit: Int) async throws -> ([HistoryEntry], Int) {
        let entries = try await scheduler.history(appID: nil, limit: max(limit, Self.window))
        let pending = try await scheduler.store.pendingCounts()
        var hasher = Hasher()
        for entry in entries.prefix(Self.window) {
            hasher.combine(entry.id)
            hasher.combine(entry.outcome)
        }
        for (app, count) in pending.sorted(by: { $0.key < $1.key }) {
            hasher.combine(app)
            hasher.combine(count)
        }
        return (entries, hasher.finalize())
    }
}
