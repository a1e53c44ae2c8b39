import Foundation

extension PushServiceClient {
    /// What one ``PushServiceClient/flush()`` did.
    public struct FlushResult: Sendable, Hashable {
        /// Receipts the server took (recorded, or already recorded: a duplicate counts as sent).
        public var sent: Int
        /// Receipts dropped because they can never succeed (a 4xx other than 401 and 429, or a message the server
        /// does not know); each drop is logged.
        public var dropped: Int
        /// Receipts still queued.
        public var remaining: Int
        /// When the next attempt may be made, while the server cannot be reached; `nil` once it answered.
        public var retryAt: Date?

        /// Creates a result (for comparisons in tests).
        public init(sent: Int, dropped: Int, remaining: Int, retryAt: Date?) {
            self.sent = sent
            self.dropped = dropped
            self.remaining = remaining
            self.retryAt = retryAt
        }
    }
}
