/// Bounds-checked integer reads from a byte array; every accessor returns `nil` instead of trapping.
struct Bytes {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var count: Int { bytes.count }

    private func slice(_ offset: Int, _ width: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, width >= 0, offset <= bytes.count - width else { return nil }
        return bytes[offset..<(offset + width)]
    }

    func uint16LE(_ offset: Int) -> UInt16? {
        slice(offset, 2).map { $0.reversed().reduce(0) { $0 << 8 | UInt16($1) } }
    }

    func uint32LE(_ offset: Int) -> UInt32? {
        slice(offset, 4).map { $0.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    }

    func uint16BE(_ offset: Int) -> UInt16? {
        slice(offset, 2).map { $0.reduce(0) { $0 << 8 | UInt16($1) } }
    }

    func uint32BE(_ offset: Int) -> UInt32? {
        slice(offset, 4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    func uint64BE(_ offset: Int) -> UInt64? {
        slice(offset, 8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// Four bytes as text, for chunk ids and format codes (non-ASCII bytes shown as `?`).
    func fourCC(_ offset: Int) -> String? {
        slice(offset, 4).map { String(decoding: $0.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self) }
    }

    /// An 80-bit IEEE 754 extended float (AIFF's sample rate), or `nil` when out of bounds.
    ///
    /// Layout: u16 sign and 15-bit exponent (bias 16383), u64 mantissa with an explicit integer bit, so the value is
    /// mantissa × 2^(exponent − 16383 − 63). Infinities and NaNs come back as `.infinity`/`.nan`.
    func extended80(_ offset: Int) -> Double? {
        guard let signAndExponent = uint16BE(offset), let mantissa = uint64BE(offset + 2) else { return nil }
        let negative = signAndExponent & 0x8000 != 0
        let exponent = Int(signAndExponent & 0x7FFF)
        if exponent == 0x7FFF { return mantissa << 1 == 0 ? (negative ? -.infinity : .infinity) : .nan }
        if mantissa == 0 { return negative ? -0.0 : 0 }
        let magnitude = Double(sign: .plus, exponent: exponent - 16383 - 63, significand: Double(mantissa))
        return negative ? -magnitude : magnitude
    }
}
