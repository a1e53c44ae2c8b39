import Foundation
import PostgresNIO

// Server mode's dead letters (issue 12): the `dead_letter` table of migration step 3.
extension PostgresNotificationStore {
    /// Records a notification APNs refused for good.
    ///
    /// - Returns: The letter's number.
    /// - Throws: What the server answers.
    @discardableResult
    public func recordDeadLetter(_ letter: DeadLetter) async throws -> Int64 {
        try await transaction { connection, logger in
            var id: Int64 = 0
            for try await value in try await connection.query(
                """
                INSERT INTO dead_letter (device_id, request_identifier, apns_id, status, reason, at)
                VALUES (\(letter.deviceID), \(letter.requestIdentifier), \(letter.apnsID), \(letter.status),
                    \(letter.reason), \(letter.date.timeIntervalSince1970))
                RETURNING id
                """, logger: logger
            ).decode(Int64.self) {
                id = value
            }
            return id
        }
    }

    /// The newest dead letters, newest first.
    ///
    /// - Parameters:
    ///   - deviceID: Only this device's; `nil` for every device's.
    ///   - limit: How many at most.
    /// - Throws: What the server answers.
    public func deadLetters(deviceID: String? = nil, limit: Int = 100) async throws -> [DeadLetter] {
        try await read { connection, logger in
            var letters: [DeadLetter] = []
            for try await (id, device, request, apnsID, status, reason, at) in try await connection.query(
                """
                SELECT id, device_id, request_identifier, apns_id, status, reason, at FROM dead_letter
                WHERE \(deviceID)::text IS NULL OR device_id = \(deviceID) ORDER BY id DESC LIMIT \(max(0, limit))
                """, logger: logger
            ).decode((Int64, String, String, String, Int?, String, Double).self) {
                letters.append(
                    DeadLetter(
                        id: id, deviceID: device, requestIdentifier: request, apnsID: apnsID, status: status,
                        reason: reason, date: Date(timeIntervalSince1970: at)))
            }
            return letters
        }
    }
}
