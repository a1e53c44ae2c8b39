import Foundation
import NotificationSound
import Testing

@Suite("SoundFileInfo parses headers built byte by byte")
struct SoundFileInfoTests {
    @Test("WAV integer PCM, stereo 44.1 kHz")
    func wavPCM() throws {
        let info = try SoundFileInfo(data: Fixture.wav(tag: 1, channels: 2, rate: 44100, bits: 16, dataSize: 44100))
        #expect(info.container == .wav)
        #expect(info.codec == .linearPCM(isFloat: false, bitsPerSample: 16))
        #expect(info.channels == 2)
        #expect(info.sampleRate == 44100)
        #expect(info.frames == 11025)
        #expect(info.duration == 0.25)
        #expect(info.violations.isEmpty)
    }

    @Test("WAV float, A-law and µ-law", arguments: [
        (UInt16(3), UInt16(32), SoundFileInfo.Codec.linearPCM(isFloat: true, bitsPerSample: 32)),
        (6, 8, .aLaw), (7, 8, .muLaw),
    ])
    func wavCodecs(tag: UInt16, bits: UInt16, codec: SoundFileInfo.Codec) throws {
        let info = try SoundFileInfo(data: Fixture.wav(tag: tag, bits: bits, fact: 800, dataSize: 800 * Int(bits / 8)))
        #expect(info.codec == codec)
        #expect(info.frames == 800)
        #expect(info.duration == 0.1)
        #expect(info.violations.isEmpty)
    }

    @Test("WAV extensible takes the real tag from the SubFormat GUID")
    func wavExtensible() throws {
        let pcm = try SoundFileInfo(
            data: Fixture.wav(tag: 0xFFFE, channels: 2, bits: 24, fmtExtra: Fixture.extensibleTail(tag: 1, bits: 24),
                dataSize: 600))
        #expect(pcm.codec == .linearPCM(isFloat: false, bitsPerSample: 24))
        #expect(pcm.frames == 100)
        let float = try SoundFileInfo(
            data: Fixture.wav(tag: 0xFFFE, bits: 32, fmtExtra: Fixture.extensibleTail(tag: 3, bits: 32), dataSize: 40))
        #expect(float.codec == .linearPCM(isFloat: true, bitsPerSample: 32))
        var odd = Fixture.extensibleTail(tag: 1)
        odd[odd.count - 1] ^= 0xFF
        let unknown = try SoundFileInfo(data: Fixture.wav(tag: 0xFFFE, fmtExtra: odd, dataSize: 40))
        #expect(!unknown.violations.isEmpty)
    }

    @Test("WAV IMA ADPCM counts frames from fact")
    func wavIMAWithFact() throws {
        let data = Fixture.wav(
            tag: 0x11, channels: 1, rate: 8000, bits: 4, blockAlign: 256, fmtExtra: Fixture.imaTail(samplesPerBlock: 505),
            fact: 1000, dataSize: 512)
        let info = try SoundFileInfo(data: data)
        #expect(info.codec == .imaADPCM)
        #expect(info.frames == 1000)
        #expect(info.duration == 0.125)
        #expect(info.violations.isEmpty)
    }

    @Test("WAV IMA ADPCM without fact: blocks × samplesPerBlock plus a partial block")
    func wavIMAWithoutFact() throws {
        let whole = Fixture.wav(
            tag: 0x11, channels: 1, rate: 8000, bits: 4, blockAlign: 256, fmtExtra: Fixture.imaTail(samplesPerBlock: 505),
            dataSize: 3 * 256)
        #expect(try SoundFileInfo(data: whole).frames == 1515)
        // A final partial block: 4-byte header (1 sample) + 10 bytes (20 samples).
        let partial = Fixture.wav(
            tag: 0x11, channels: 1, rate: 8000, bits: 4, blockAlign: 256, fmtExtra: Fixture.imaTail(samplesPerBlock: 505),
            dataSize: 3 * 256 + 14)
        #expect(try SoundFileInfo(data: partial).frames == 1515 + 21)
        // No cbSize/samplesPerBlock: derived from the block size (stereo 2048-byte blocks hold 2041 frames).
        let derived = Fixture.wav(tag: 0x11, channels: 2, rate: 44100, bits: 4, blockAlign: 2048, dataSize: 4096)
        #expect(try SoundFileInfo(data: derived).frames == 2 * 2041)
    }

    @Test("MP3 in WAV (tag 0x55) is parsed but refused")
    func mp3InWAV() throws {
        let data = Fixture.wav(tag: 0x55, channels: 2, rate: 44100, bits: 0, blockAlign: 1, fact: 44100, dataSize: 100)
        let info = try SoundFileInfo(data: data)
        #expect(info.codec == .other("WAV format tag 0x0055 (MPEG Layer III)"))
        #expect(info.duration == 1)
        #expect(info.violations.count == 1)
        #expect(info.violations.first?.contains("MPEG Layer III") == true)
    }

    @Test("AIFF's 80-bit sample rate", arguments: [
        ([0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0] as [UInt8], 44100.0),
        ([0x40, 0x0D, 0xAC, 0x44, 0, 0, 0, 0, 0, 0], 22050.0),
        ([0x40, 0x0B, 0xFA, 0x00, 0, 0, 0, 0, 0, 0], 8000.0),
    ])
    func aiffRate(bytes: [UInt8], rate: Double) throws {
        let info = try SoundFileInfo(data: Fixture.aiff(frames: UInt32(rate), rateBytes: bytes, soundBytes: 16))
        #expect(info.container == .aiff)
        #expect(info.sampleRate == rate)
        #expect(info.duration == 1)
        #expect(info.codec == .linearPCM(isFloat: false, bitsPerSample: 16))
    }

    @Test("AIFC compression types", arguments: [
        ("NONE", SoundFileInfo.Codec.linearPCM(isFloat: false, bitsPerSample: 16), 800),
        ("sowt", .linearPCM(isFloat: false, bitsPerSample: 16), 800),
        ("fl32", .linearPCM(isFloat: true, bitsPerSample: 32), 800),
        ("fl64", .linearPCM(isFloat: true, bitsPerSample: 64), 800),
        ("ulaw", .muLaw, 800),
        ("alaw", .aLaw, 800),
        ("ima4", .imaADPCM, 64 * 800),  // numSampleFrames counts 64-frame packets
        ("GSM ", .other("AIFC compression 'GSM '"), 800),
    ])
    func aifc(compression: String, codec: SoundFileInfo.Codec, frames: Int) throws {
        let info = try SoundFileInfo(data: Fixture.aiff(compression: compression, frames: 800, soundBytes: 16))
        #expect(info.container == .aifc)
        #expect(info.codec == codec)
        #expect(info.frames == frames)
        #expect(info.violations.isEmpty == (compression != "GSM "))
    }

    @Test("CAF codecs", arguments: [
        ("lpcm", UInt32(2), UInt32(4), UInt32(1), SoundFileInfo.Codec.linearPCM(isFloat: false, bitsPerSample: 16)),
        ("lpcm", 1 | 2, 8, 1, .linearPCM(isFloat: true, bitsPerSample: 32)),
        ("ulaw", 0, 2, 1, .muLaw),
        ("alaw", 0, 2, 1, .aLaw),
        ("ima4", 0, 68, 64, .imaADPCM),
    ])
    func caf(format: String, flags: UInt32, bytesPerPacket: UInt32, framesPerPacket: UInt32, codec: SoundFileInfo.Codec)
        throws
    {
        let bits: UInt32 = codec == .linearPCM(isFloat: true, bitsPerSample: 32) ? 32 : 16
        let data = Fixture.caf(
            format: format, flags: flags, rate: 8000, bytesPerPacket: bytesPerPacket, framesPerPacket: framesPerPacket,
            bits: bits, audioBytes: Int(bytesPerPacket) * 100)
        let info = try SoundFileInfo(data: data)
        #expect(info.container == .caf)
        #expect(info.codec == codec)
        #expect(info.channels == 2)
        #expect(info.frames == 100 * Int(framesPerPacket))
        #expect(info.violations.isEmpty)
    }

    @Test("CAF data size -1 runs to the end of the file")
    func cafUnknownDataSize() throws {
        let data = Fixture.caf(
            format: "lpcm", bytesPerPacket: 4, framesPerPacket: 1, audioBytes: 4 * 4410, dataSizeUnknown: true)
        let info = try SoundFileInfo(data: data)
        #expect(info.frames == 4410)
        #expect(info.duration == 0.1)
        // Every prefix still parses or throws; those past the edit count parse with fewer frames.
        let headerEnd = data.count - 4 * 4410
        for length in 0..<data.count {
            let prefix = data.prefix(length)
            if length < headerEnd {
                #expect(throws: SoundFileError.self) { try SoundFileInfo(data: prefix) }
            } else {
                #expect(try SoundFileInfo(data: prefix).frames == (length - headerEnd) / 4)
            }
        }
    }

    @Test("CAF variable packets use pakt, and are refused without it")
    func cafPacketTable() throws {
        let aac = Fixture.caf(
            format: "aac ", bytesPerPacket: 0, framesPerPacket: 1024, audioBytes: 64, packetTable: (10, 10240 - 2112))
        let info = try SoundFileInfo(data: aac)
        #expect(info.frames == 10240 - 2112)
        #expect(info.codec == .other("CAF format 'aac '"))
        #expect(!info.violations.isEmpty)
        let bare = Fixture.caf(format: "aac ", bytesPerPacket: 0, framesPerPacket: 1024, audioBytes: 64)
        #expect { try SoundFileInfo(data: bare) } throws: { ($0 as? SoundFileError)?.code == .malformed }
    }

    @Test("31 seconds is refused, 29.9 seconds accepted")
    func durationLimit() throws {
        let long = try SoundFileInfo(data: Fixture.wav(tag: 1, rate: 1000, bits: 8, dataSize: 31000))
        #expect(long.duration == 31)
        #expect(long.violations.count == 1)
        #expect(long.violations.first?.contains("shorter than 30 s") == true)
        let short = try SoundFileInfo(data: Fixture.wav(tag: 1, rate: 1000, bits: 8, dataSize: 29900))
        #expect(short.duration == 29.9)
        #expect(short.violations.isEmpty)
        let exact = SoundFileInfo(container: .caf, codec: .muLaw, channels: 1, sampleRate: 8000, frames: 240_000)
        #expect(!exact.violations.isEmpty)
    }

    @Test("inconsistent headers are malformed", arguments: [
        Fixture.wav(tag: 1, rate: 0, dataSize: 16),
        Fixture.wav(tag: 1, blockAlign: 0, dataSize: 16),
        Fixture.wav(tag: 1, channels: 0, blockAlign: 2, dataSize: 16),
        Fixture.wav(tag: 0x11, bits: 4, blockAlign: 2, dataSize: 16),
        Fixture.aiff(frames: 10, rateBytes: [UInt8](repeating: 0, count: 10), soundBytes: 16),
        Fixture.aiff(frames: 10, rateBytes: [0x7F, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], soundBytes: 16),
        Fixture.aiff(channels: 0, frames: 10, soundBytes: 16),
        Fixture.caf(format: "lpcm", rate: 0, bytesPerPacket: 4, framesPerPacket: 1, audioBytes: 16),
        Fixture.caf(format: "lpcm", rate: .nan, bytesPerPacket: 4, framesPerPacket: 1, audioBytes: 16),
        Fixture.caf(format: "lpcm", bytesPerPacket: 4, framesPerPacket: 1, channels: 0, audioBytes: 16),
    ])
    func malformed(data: Data) {
        #expect { try SoundFileInfo(data: data) } throws: { ($0 as? SoundFileError)?.code == .malformed }
    }

    @Test("not a sound file")
    func unknownContainer() {
        for text in ["ID3\u{3}\0\0\0\0\0\0abcdef", "OggS\0\u{2}\0\0\0\0\0\0\0\0", "RIFF\0\0\0\0AVI LIST", "<html>"] {
            #expect { try SoundFileInfo(data: Data(text.utf8)) } throws: {
                ($0 as? SoundFileError)?.code == .unknownContainer
            }
        }
        #expect { try SoundFileInfo(data: Data()) } throws: { ($0 as? SoundFileError)?.code == .truncated }
    }

    static let fixtures: [Data] = [
        Fixture.wav(tag: 1, channels: 2, dataSize: 16),
        Fixture.wav(tag: 7, bits: 8, fact: 16, dataSize: 16),
        Fixture.wav(tag: 0xFFFE, fmtExtra: Fixture.extensibleTail(tag: 1), dataSize: 16),
        Fixture.wav(tag: 0x11, bits: 4, blockAlign: 36, fmtExtra: Fixture.imaTail(samplesPerBlock: 65), dataSize: 36),
        Fixture.aiff(frames: 8, soundBytes: 16),
        Fixture.aiff(compression: "ulaw", frames: 16, bits: 8, soundBytes: 16),
        Fixture.caf(format: "lpcm", bytesPerPacket: 4, framesPerPacket: 1, audioBytes: 16),
        Fixture.caf(format: "aac ", bytesPerPacket: 0, framesPerPacket: 1024, audioBytes: 16, packetTable: (1, 1024)),
    ]

    @Test("every proper prefix of a valid file throws instead of trapping", arguments: fixtures)
    func truncatedPrefixes(data: Data) throws {
        _ = try SoundFileInfo(data: data)
        for length in 0..<data.count {
            #expect(throws: SoundFileError.self) { try SoundFileInfo(data: data.prefix(length)) }
        }
    }

    @Test("corrupted bytes never trap", arguments: fixtures)
    func corruptedBytes(data: Data) {
        var generator = SplitMix64(seed: UInt64(data.count))
        for _ in 0..<2000 {
            var bytes = [UInt8](data)
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if let info = try? SoundFileInfo(data: Data(bytes)) {
                #expect(info.sampleRate > 0 && info.channels > 0 && info.frames >= 0)
            }
        }
    }

    @Test("files: unreadable paths and a real read")
    func files() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect { try SoundFileInfo(contentsOf: directory.file("missing.wav")) } throws: {
            ($0 as? SoundFileError)?.code == .unreadable
        }
        #expect { try SoundFileInfo(contentsOf: directory.url) } throws: { ($0 as? SoundFileError)?.code == .unreadable }
        let url = directory.file("ok.caf")
        try Fixture.caf(format: "ulaw", rate: 8000, bytesPerPacket: 2, framesPerPacket: 1, audioBytes: 1600)
            .write(to: url)
        let info = try SoundFileInfo(contentsOf: url)
        #expect(info.duration == 0.1)
        let cut = directory.file("cut.wav")
        try Fixture.wav(tag: 1, dataSize: 100).prefix(80).write(to: cut)
        do {
            _ = try SoundFileInfo(contentsOf: cut)
            Issue.record("a truncated file parsed")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.file == cut)
            #expect(error.description.contains("cut.wav is truncated"))
        }
    }
}

/// A small deterministic generator for the corruption test.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
