import Foundation
import PostgresNIO

// Wake-ups between workers (issue 12): migration step 4's trigger notifies `unotify_pending` on every statement that
// inserts pending requests.
extension PostgresNotificationStore {
    /// The channel migration step 4's trigger notifies.
    public static let pendingChannel = "unotify_pending"

    /// Listens for added pending requests on one of the pool's connections, until the task is cancelled or the
    /// connection fails: `onChange` runs once for each committed statement that inserted requests, whoever ran it.
    ///
    /// ```swift
    /// try await store.listenForPendingInserts(onListening: {}) { scheduler.storeDidChange() }
    /// ```
    ///
    /// - Parameters:
    ///   - onListening: Runs once `LISTEN` is in effect: a request added after it is always reported.
    ///   - onChange: Runs for each notification.
    /// - Throws: What the connection throws when it fails (then listen again, and read the store: notifications sent
    ///   meanwhile are lost).
    public func listenForPendingInserts(
        onListening: @Sendable () -> Void, onChange: @Sendable () -> Void
    ) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.pendingChannel) { notifications in
                onListening()
                for try await _ in notifications { onChange() }
            }
        }
    }
}
