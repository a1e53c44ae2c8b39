import Foundation

/// A device token: the 32 bytes that address one app on one machine, shown as 64 lowercase hex digits.
///
/// ```swift
/// let token = DeviceToken.random()
/// print(token)                                  // "9f2c…" (64 hex digits)
/// DeviceToken(hex: token.hex) == token          // true
/// ```
public struct DeviceToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The token's length in bytes.
    public static let byteCount = 32

    /// The 32 bytes.
    public let bytes: Data

    /// A token from its bytes; `nil` unless there are exactly 32.
    public init?(bytes: Data) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Data(bytes)
    }

    /// A token from 64 hex digits, either case; `nil` for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == Self.byteCount * 2 else { return nil }
        // Straight into the token's storage, without a copy of the digits: the APNs endpoint reads one per push.
        var hex = hex
        let bytes = hex.withUTF8 { digits -> Data? in
            var bytes = Data(count: Self.byteCount)
            let valid = bytes.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
                for index in 0..<Self.byteCount {
                    guard let high = Self.nibble(digits[2 * index]), let low = Self.nibble(digits[2 * index + 1]) else {
                        return false
                    }
                    out[index] = high << 4 | low
                }
                return true
            }
            return valid ? bytes : nil
        }
        guard let bytes else { return nil }
        self.bytes = bytes
    }

    /// A new random token.
    public static func random() -> DeviceToken {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new random token drawn from `generator`.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> DeviceToken {
        DeviceToken(bytes: Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))!
    }

    /// The 64 lowercase hex digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var result = [UInt8]()
        result.reserveCapacity(Self.byteCount * 2)
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The hex digits.
    public var description: String { hex }

    /// Encodes as the hex string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    /// Decodes the hex string ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let token = DeviceToken(hex: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a device token is 64 hex digits")
        }
        self = token
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
