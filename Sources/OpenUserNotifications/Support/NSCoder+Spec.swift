import Foundation

// Secure coding of the UN classes: each encodes its engine form (the versioned `Codable` snapshot the store and
// the daemon protocol also use) as JSON data under a key, and scalars of its own under their property names.
extension NSCoder {
    /// Encodes a `Codable` value as JSON data under `key`; a value that does not encode is left out, so that
    /// decoding fails.
    func encodeSpec<Value: Encodable>(_ value: Value, forKey key: String) {
        guard let data = try? JSONEncoder().encode(value) else { return }
        encode(data as NSData, forKey: key)
    }

    /// The `Codable` value under `key`, or `nil` when it is missing or not decodable.
    func decodeSpec<Value: Decodable>(_ type: Value.Type, forKey key: String) -> Value? {
        // Foundation on Linux fails the whole unarchiving when an absent key is decoded: ask first.
        guard containsValue(forKey: key), let data = decodeObject(of: NSData.self, forKey: key) else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data as Data)
    }

    /// The date under `key`.
    func decodeDate(forKey key: String) -> Date? {
        containsValue(forKey: key) ? decodeObject(of: NSDate.self, forKey: key).map { $0 as Date } : nil
    }

    /// The string under `key`.
    func decodeString(forKey key: String) -> String? {
        containsValue(forKey: key) ? decodeObject(of: NSString.self, forKey: key).map { String($0) } : nil
    }
}
