/// The `apns-id` the APNs endpoint gives a request that came without one: a random (version 4) UUID in lowercase
/// 8-4-4-4-12 hex digits, as APNs answers it.
///
/// Drawn from the system's random number generator (`getrandom` on Linux). Foundation's `UUID()` on Linux opens, reads
/// and closes `/dev/urandom` for every UUID: three system calls, which the endpoint paid two or three times per push.
///
/// ```swift
/// let id = APNsID.random()   // "3f2b8c1e-9a4d-4f6e-b1c2-7d8e9f0a1b2c"
/// ```
public enum APNsID {
    /// A new random `apns-id`.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new random `apns-id` drawn from `generator`.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            // The version (4, random) and the variant (RFC 4122), as UUID() sets them.
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            return String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var count = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[count] = UInt8(ascii: "-")
                        count += 1
                    }
                    text[count] = digits.utf8Start[Int(byte >> 4)]
                    text[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    count += 2
                }
                return count
            }
        }
    }
}
