import Foundation
import Logging
import PostgresNIO

// The push service's receipts (issue 20): the `push_receipt` table of migration step 7.
extension PostgresNotificationStore {
    /// The most receipts one call records.
    public static let maximumReceiptsPerCall = 100

    /// What ``recordReceipts(_:deviceID:)`` did.
    public struct ReceiptResult: Sendable, Hashable {
        /// Receipts stored now.
        public var recorded: Int
        /// Receipts the store had already (the same device, message and kind): ignored.
        public var duplicates: Int
        /// Message identifiers no push has: their receipts are not stored.
        public var unknownMessages: [String]
    }

    /// Records a device's receipts, once per device, message and kind; opened, dismissed and action receipts record
    /// `received` too.
    ///
    /// - Parameters:
    ///   - receipts: At most ``maximumReceiptsPerCall``.
    ///   - deviceID: The device that reports them (the caller checked its credential).
    /// - Returns: How many were stored, how many were known already, and the unknown message identifiers.
    /// - Throws: ``PushError`` with ``PushError/Code/invalidPush`` for too many receipts or an action receipt without
    ///   an action identifier (nothing is stored then); what the server answers.
    public func recordReceipts(_ receipts: [PushReceipt], deviceID: String) async throws -> ReceiptResult {
        guard receipts.count <= Self.maximumReceiptsPerCall else {
            throw PushError(
                .invalidPush, "\(receipts.count) receipts: one call takes at most \(Self.maximumReceiptsPerCall)")
        }
        for receipt in receipts where receipt.kind == .action {
            guard let action = receipt.action, !action.isEmpty, action.count <= AudienceLimits.nameLength else {
                throw PushError(.invalidPush, "an action receipt names its action (1 to 128 characters)")
            }
        }
        // The implied `received` of each opened, dismissed or action receipt, after the receipts themselves.
        let rows =
            receipts
            + receipts.filter { $0.kind != .received }.map {
                PushReceipt(messageID: $0.messageID, kind: .received, date: $0.date)
            }
        let explicit = receipts.count
        return try await transaction { connection, logger in
            var known = Set<String>()
            for try await id in try await connection.query(
                "SELECT id FROM push WHERE id = ANY(\(Array(Set(rows.map(\.messageID)))))", logger: logger
            ).decode(String.self) {
                known.insert(id)
            }
            var result = ReceiptResult(recorded: 0, duplicates: 0, unknownMessages: [])
            for (index, receipt) in rows.enumerated() where index < explicit && !known.contains(receipt.messageID) {
                if !result.unknownMessages.contains(receipt.messageID) { result.unknownMessages.append(receipt.messageID) }
            }
            let stored = rows.filter { known.contains($0.messageID) }
            // One statement for all of them, in order (explicit receipts before the implied ones): a row that meets
            // one already stored, or one before it in the same statement, is skipped.
            var inserted: [String: Int] = [:]
            for try await (messageID, kind) in try await connection.query(
                """
                INSERT INTO push_receipt (message_id, device_id, kind, action, at)
                SELECT m, \(deviceID), k, NULLIF(a, ''), t
                FROM unnest(\(stored.map(\.messageID))::text[], \(stored.map(\.kind.rawValue))::text[],
                    \(stored.map { $0.action ?? "" })::text[], \(stored.map(\.date.timeIntervalSince1970))::float8[])
                    WITH ORDINALITY AS r(m, k, a, t, n)
                ORDER BY n
                ON CONFLICT DO NOTHING RETURNING message_id, kind
                """, logger: logger
            ).decode((String, String).self) {
                inserted["\(messageID)\u{1F}\(kind)", default: 0] += 1
            }
            // Implied receipts count in neither figure: they are the store's bookkeeping.
            for receipt in rows.prefix(explicit) where known.contains(receipt.messageID) {
                let key = "\(receipt.messageID)\u{1F}\(receipt.kind.rawValue)"
                if let count = inserted[key], count > 0 {
                    inserted[key] = count - 1
                    result.recorded += 1
                } else {
                    result.duplicates += 1
                }
            }
            return result
        }
    }

    /// Receipts: how many devices reported each kind, and each action by identifier.
    static func receiptCounts(_ scope: StatisticsScope, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> (kinds: [String: Int], actions: [String: Int])
    {
        var kinds: [String: Int] = [:]
        var actions: [String: Int] = [:]
        for try await (kind, action, count) in try await connection.query(scope.receiptsQuery, logger: logger).decode((String, String?, Int).self) {
            kinds[kind, default: 0] += count
            if kind == PushReceipt.Kind.action.rawValue, let action { actions[action, default: 0] += count }
        }
        return (kinds, actions)
    }
}
