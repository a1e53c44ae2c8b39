import Foundation

/// One receipt waiting in the queue file: one JSON line, in the shape `POST /v1/devices/{id}/receipts` takes.
struct QueuedReceipt: Codable, Hashable, Sendable {
    /// The push's message identifier (`unotify-message-id` in `userInfo`).
    var messageId: String
    /// `received`, `opened`, `dismissed` or `action`.
    var kind: String
    /// The action's identifier, for the kind `action` only.
    var action: String?
    /// When it happened, as ISO 8601 with seconds (the server's format).
    var at: String

    /// Creates the queued form of a receipt made at `date`.
    init(messageID: String, kind: PushServiceClient.ReceiptKind, date: Date) {
        messageId = messageID
        switch kind {
        case .received: self.kind = "received"
        case .opened: self.kind = "opened"
        case .dismissed: self.kind = "dismissed"
        case .action(let identifier):
            self.kind = "action"
            action = identifier
        }
        at = date.formatted(.iso8601)
    }

    /// Whether a line read back from disk is a receipt the server can take (a line edited by hand may not be).
    var isWellFormed: Bool {
        guard !messageId.isEmpty, (try? Date(at, strategy: .iso8601)) != nil else { return false }
        switch kind {
        case "received", "opened", "dismissed": return action == nil
        case "action": return !(action ?? "").isEmpty
        default: return false
        }
    }
}
