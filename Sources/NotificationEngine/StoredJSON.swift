import Foundation

/// The JSON every ``NotificationStore`` implementation writes into its payload columns (request specs, triggers,
/// delivered content): sorted keys and dates as seconds since 1970, so that the SQLite and the PostgreSQL stores hold
/// the same bytes for the same value and a row reads the same in `sqlite3` and `psql`.
///
/// ```swift
/// let bytes = try StoredJSON.encode(spec)
/// let again = try StoredJSON.decode(RequestSpec.self, from: bytes)
/// ```
public enum StoredJSON {
    /// Encodes `value` with the stores' settings.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try makeEncoder().encode(value)
    }

    /// An encoder with the stores' settings, for encoding many values with one.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    /// Decodes a `T` written with the stores' settings.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(type, from: data)
    }
}
