/// The per-user secret that opens the web center: 32 random bytes, written as 64 lowercase hex digits.
///
/// The daemon makes a new one each time it starts the center and keeps it in a file only its user can read
/// (``WebCenterFiles``); `unotify center` prints the URL that carries it. It is compared in constant time.
///
/// ```swift
/// let secret = WebCenterSecret.random()
/// secret.matches(secret.hex)   // true
/// ```
public struct WebCenterSecret: Sendable, Hashable, CustomStringConvertible {
    /// The secret as 64 lowercase hex digits.
    public let hex: String

    /// A new secret from the system's random number generator.
    public static func random() -> WebCenterSecret {
        var generator = SystemRandomNumberGenerator()
        return WebCenterSecret(checkedHex: randomHex(bytes: 32, using: &generator))
    }

    /// A secret read back from its text.
    /// - Throws: ``WebCenterError`` (``WebCenterError/Code/secretUnavailable``) unless the text is 64 hex digits.
    public init(hex: String) throws(WebCenterError) {
        let text = hex.lowercased()
        guard text.utf8.count == 64, text.utf8.allSatisfy(Self.isHexDigit) else {
            throw WebCenterError(.secretUnavailable, "a web center secret is 64 hex digits")
        }
        self.hex = text
    }

    private init(checkedHex: String) {
        hex = checkedHex
    }

    /// Whether `candidate` is this secret, in time that depends only on the lengths.
    public func matches(_ candidate: some StringProtocol) -> Bool {
        Self.constantTimeEquals(Array(hex.utf8), Array(candidate.utf8))
    }

    /// Hidden: the secret never goes to a log by accident.
    public var description: String { "WebCenterSecret(…)" }

    /// Random bytes as lowercase hex digits.
    package static func randomHex(bytes: Int, using generator: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Compares two byte strings without stopping at the first difference.
    package static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
