import Foundation
import NotificationModel

extension FastSpecJSON {
    /// The stored JSON of an APNs request log entry (the `apnsLog` row), byte for byte what ``StoredJSON`` writes, or
    /// `nil` when a string holds a control character (a payload with a line break): the caller then uses
    /// ``StoredJSON``. The endpoint logs every request, the trivial route's too, so this ran once per request.
    ///
    /// Keys in byte order: apnsID, connection, environment, headers, id, latency, method, path, payload, reason,
    /// receivedAt, status (apnsID and reason only when set).
    ///
    /// ```swift
    /// let bytes = try FastSpecJSON.encode(entry) ?? StoredJSON.encode(entry)
    /// ```
    static func encode(_ entry: APNsLogEntry) -> Data? {
        var writer = Writer()
        writer.bytes.reserveCapacity(256 + entry.payload.utf8.count)
        writer.bytes.append(UInt8(ascii: "{"))
        var first = true
        if let apnsID = entry.apnsID {
            writer.key("\"apnsID\":", first: &first)
            guard writer.string(apnsID) else { return nil }
        }
        writer.key("\"connection\":", first: &first)
        guard writer.string(entry.connection) else { return nil }
        writer.raw(",\"environment\":")
        guard writer.string(entry.environment.rawValue) else { return nil }
        writer.raw(",\"headers\":[")
        for (index, header) in entry.headers.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.bytes.append(UInt8(ascii: "["))
            for (position, part) in header.enumerated() {
                if position > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                guard writer.string(part) else { return nil }
            }
            writer.bytes.append(UInt8(ascii: "]"))
        }
        writer.raw("],\"id\":")
        writer.bytes.append(contentsOf: String(entry.id).utf8)
        writer.raw(",\"latency\":")
        guard writer.number(entry.latency) else { return nil }
        writer.raw(",\"method\":")
        guard writer.string(entry.method) else { return nil }
        writer.raw(",\"path\":")
        guard writer.string(entry.path) else { return nil }
        writer.raw(",\"payload\":")
        guard writer.string(entry.payload) else { return nil }
        if let reason = entry.reason {
            writer.raw(",\"reason\":")
            guard writer.string(reason) else { return nil }
        }
        writer.raw(",\"receivedAt\":")
        guard writer.number(entry.receivedAt.timeIntervalSince1970) else { return nil }
        writer.raw(",\"status\":")
        writer.number(entry.status)
        writer.bytes.append(UInt8(ascii: "}"))
        return Data(writer.bytes)
    }
}
