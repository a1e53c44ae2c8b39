import Foundation

/// Builds sound file headers byte by byte.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func ascii(_ text: String) { bytes += Array(text.utf8) }
    mutating func u16le(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    mutating func u32le(_ value: UInt32) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    mutating func u16be(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func u32be(_ value: UInt32) { bytes += (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    mutating func u64be(_ value: UInt64) { bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    mutating func f64be(_ value: Double) { u64be(value.bitPattern) }
    mutating func zeros(_ count: Int) { bytes += [UInt8](repeating: 0, count: count) }

    /// An 80-bit IEEE extended float, as in AIFF's COMM chunk (positive normal values only).
    mutating func extended80(_ value: Double) {
        u16be(UInt16(16383 + Int(value.exponent)))
        u64be(1 << 63 | value.significandBitPattern << 11)
    }
}

/// Minimal valid files; each ends with its audio chunk so that every proper prefix is a truncated file.
enum Fixture {
    static func wav(
        tag: UInt16, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16 = 16, blockAlign: UInt16? = nil,
        fmtExtra: [UInt8] = [], fact: UInt32? = nil, dataSize: Int
    ) -> Data {
        let align = blockAlign ?? channels * max(bits / 8, 1)
        var fmt = ByteWriter()
        fmt.u16le(tag)
        fmt.u16le(channels)
        fmt.u32le(rate)
        fmt.u32le(rate * UInt32(align))
        fmt.u16le(align)
        fmt.u16le(bits)
        fmt.bytes += fmtExtra
        var file = ByteWriter()
        file.ascii("RIFF")
        let total = 4 + 8 + fmt.bytes.count + (fact == nil ? 0 : 12) + 8 + dataSize
        file.u32le(UInt32(total))
        file.ascii("WAVE")
        file.ascii("fmt ")
        file.u32le(UInt32(fmt.bytes.count))
        file.bytes += fmt.bytes
        if let fact {
            file.ascii("fact")
            file.u32le(4)
            file.u32le(fact)
        }
        file.ascii("data")
        file.u32le(UInt32(dataSize))
        file.zeros(dataSize)
        return Data(file.bytes)
    }

    /// The extensible fmt tail: cbSize 22, valid bits, channel mask, SubFormat GUID for `tag`.
    static func extensibleTail(tag: UInt16, bits: UInt16 = 16) -> [UInt8] {
        var tail = ByteWriter()
        tail.u16le(22)
        tail.u16le(bits)
        tail.u32le(0)
        tail.u16le(tag)
        tail.bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        return tail.bytes
    }

    /// The IMA fmt tail: cbSize 2, samplesPerBlock.
    static func imaTail(samplesPerBlock: UInt16) -> [UInt8] {
        var tail = ByteWriter()
        tail.u16le(2)
        tail.u16le(samplesPerBlock)
        return tail.bytes
    }

    static func aiff(
        compression: String? = nil, channels: UInt16 = 1, frames: UInt32, bits: UInt16 = 16,
        rateBytes: [UInt8]? = nil, rate: Double = 8000, soundBytes: Int
    ) -> Data {
        var common = ByteWriter()
        common.u16be(channels)
        common.u32be(frames)
        common.u16be(bits)
        if let rateBytes { common.bytes += rateBytes } else { common.extended80(rate) }
        if let compression {
            common.ascii(compression)
            common.bytes += [4] + Array("none".utf8) + [0]  // pstring padded to even length
        }
        var file = ByteWriter()
        file.ascii("FORM")
        file.u32be(UInt32(4 + (compression == nil ? 0 : 12) + 8 + common.bytes.count + 8 + 8 + soundBytes))
        file.ascii(compression == nil ? "AIFF" : "AIFC")
        if compression != nil {
            file.ascii("FVER")
            file.u32be(4)
            file.u32be(0xA280_5140)
        }
        file.ascii("COMM")
        file.u32be(UInt32(common.bytes.count))
        file.bytes += common.bytes
        file.ascii("SSND")
        file.u32be(UInt32(8 + soundBytes))
        file.u32be(0)
        file.u32be(0)
        file.zeros(soundBytes)
        return Data(file.bytes)
    }

    static func caf(
        format: String, flags: UInt32 = 0, rate: Double = 44100, bytesPerPacket: UInt32, framesPerPacket: UInt32,
        channels: UInt32 = 2, bits: UInt32 = 16, audioBytes: Int, dataSizeUnknown: Bool = false,
        packetTable: (packets: Int64, validFrames: Int64)? = nil
    ) -> Data {
        var file = ByteWriter()
        file.ascii("caff")
        file.u16be(1)
        file.u16be(0)
        file.ascii("desc")
        file.u64be(32)
        file.f64be(rate)
        file.ascii(format)
        file.u32be(flags)
        file.u32be(bytesPerPacket)
        file.u32be(framesPerPacket)
        file.u32be(channels)
        file.u32be(bits)
        if let packetTable {
            file.ascii("pakt")
            file.u64be(24)
            file.u64be(UInt64(bitPattern: packetTable.packets))
            file.u64be(UInt64(bitPattern: packetTable.validFrames))
            file.u32be(0)
            file.u32be(0)
        }
        file.ascii("data")
        file.u64be(dataSizeUnknown ? UInt64.max : UInt64(4 + audioBytes))
        file.u32be(0)
        file.zeros(audioBytes)
        return Data(file.bytes)
    }
}
