import Foundation

/// RIFF WAVE: little-endian chunks `{id[4], u32 size, body, pad to even}` after `"RIFF" u32 "WAVE"`.
enum WAVParser {
    private struct Format {
        var tag: UInt16
        var channels: Int
        var sampleRate: Int
        var byteRate: Int
        var blockAlign: Int
        var bitsPerSample: Int
        var samplesPerBlock: Int?
        var subFormatIsStandard = true
    }

    static func parse(_ source: some ByteSource) throws(SoundFileError) -> SoundFileInfo {
        var format: Format?
        var factFrames: Int?
        var dataSize: Int64?
        var ranOut = false
        var offset: Int64 = 12
        var walked = 0
        while offset < source.length {
            walked += 1
            guard walked <= HeaderParser.maximumChunks else {
                throw SoundFileError(.malformed, reason: "more than \(HeaderParser.maximumChunks) chunks")
            }
            let header = try source.read(at: offset, count: 8)
            guard header.count == 8, let id = Bytes(header).fourCC(0), let size32 = Bytes(header).uint32LE(4) else {
                ranOut = true
                break
            }
            let size = Int64(size32)
            let body = offset + 8
            let complete = size <= source.length - body
            switch id {
            case "fmt ":
                guard complete else { throw cut("the fmt chunk", size, source.length - body) }
                format = try parseFormat(source, at: body, size: size)
            case "fact" where size >= 4:
                guard complete else { throw cut("the fact chunk", size, source.length - body) }
                let fact = try HeaderParser.need(source, at: body, count: 4, for: "the fact chunk")
                factFrames = fact.uint32LE(0).map(Int.init)
            case "data":
                guard complete else { throw cut("the data chunk", size, source.length - body) }
                dataSize = size
            default:
                guard complete else {
                    ranOut = true
                    break
                }
            }
            if !complete { break }
            offset = body + size + (size & 1)
        }
        guard let format else {
            throw SoundFileError(ranOut ? .truncated : .malformed, reason: "no fmt chunk before the end of the file")
        }
        guard let dataSize else {
            throw SoundFileError(ranOut ? .truncated : .malformed, reason: "no data chunk before the end of the file")
        }
        let codec = codec(of: format)
        let frames: Int
        switch codec {
        case .linearPCM, .muLaw, .aLaw:
            frames = Int(dataSize) / format.blockAlign
        case .imaADPCM:
            if let factFrames {
                frames = factFrames
            } else {
                frames = try imaFrames(dataSize: Int(dataSize), format: format)
            }
        case .other:
            if let factFrames {
                frames = factFrames
            } else if format.byteRate > 0 {
                frames = Int(Double(dataSize) / Double(format.byteRate) * Double(format.sampleRate))
            } else {
                throw SoundFileError(.malformed, reason: "\(codec) without a fact chunk or a byte rate")
            }
        }
        return SoundFileInfo(
            container: .wav, codec: codec, channels: format.channels, sampleRate: Double(format.sampleRate),
            frames: frames)
    }

    private static func cut(_ what: String, _ size: Int64, _ present: Int64) -> SoundFileError {
        SoundFileError(.truncated, reason: "\(what) declares \(size) bytes, \(max(present, 0)) are present")
    }

    private static func parseFormat(
        _ source: some ByteSource, at offset: Int64, size: Int64
    ) throws(SoundFileError) -> Format {
        guard size >= 16 else { throw SoundFileError(.malformed, reason: "the fmt chunk is \(size) bytes, less than 16") }
        let body = try HeaderParser.need(source, at: offset, count: Int(min(size, 40)), for: "the fmt chunk")
        guard let tag = body.uint16LE(0), let channels = body.uint16LE(2), let rate = body.uint32LE(4),
            let byteRate = body.uint32LE(8), let blockAlign = body.uint16LE(12), let bits = body.uint16LE(14)
        else { throw SoundFileError(.truncated, reason: "the fmt chunk is cut short") }
        guard channels > 0 else { throw SoundFileError(.malformed, reason: "the fmt chunk says 0 channels") }
        guard rate > 0 else { throw SoundFileError(.malformed, reason: "the fmt chunk says a sample rate of 0") }
        guard blockAlign > 0 else { throw SoundFileError(.malformed, reason: "the fmt chunk says a block align of 0") }
        var format = Format(
            tag: tag, channels: Int(channels), sampleRate: Int(rate), byteRate: Int(byteRate),
            blockAlign: Int(blockAlign), bitsPerSample: Int(bits))
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: cbSize(16) validBits(18) channelMask(20) SubFormat GUID(24..<40).
            guard body.count >= 40, let real = body.uint16LE(24) else {
                throw SoundFileError(.malformed, reason: "an extensible fmt chunk of \(size) bytes, less than 40")
            }
            format.tag = real
            // The rest of KSDATAFORMAT_SUBTYPE_*: 0000-0010-8000-00AA00389B71.
            let tail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
            format.subFormatIsStandard = Array(body.bytes[26..<40]) == tail
        }
        if format.tag == 0x11 {
            if let samplesPerBlock = body.uint16LE(18), body.uint16LE(16).map({ $0 >= 2 }) == true {
                format.samplesPerBlock = Int(samplesPerBlock)
            } else {
                format.samplesPerBlock = imaSamplesPerBlock(blockAlign: format.blockAlign, channels: format.channels)
            }
        }
        return format
    }

    private static func codec(of format: Format) -> SoundFileInfo.Codec {
        guard format.subFormatIsStandard else {
            return .other(String(format: "WAV extensible format with a non-standard SubFormat GUID (0x%04X…)", format.tag))
        }
        switch format.tag {
        case 0x0001: return .linearPCM(isFloat: false, bitsPerSample: format.bitsPerSample)
        case 0x0003: return .linearPCM(isFloat: true, bitsPerSample: format.bitsPerSample)
        case 0x0006: return .aLaw
        case 0x0007: return .muLaw
        case 0x0011: return .imaADPCM
        default:
            let names: [UInt16: String] = [
                0x0002: "Microsoft ADPCM", 0x0031: "GSM 6.10", 0x0050: "MPEG", 0x0055: "MPEG Layer III",
                0x00FF: "AAC", 0x1610: "AAC (HE)", 0x2000: "AC-3",
            ]
            let name = names[format.tag].map { " (\($0))" } ?? ""
            return .other(String(format: "WAV format tag 0x%04X", format.tag) + name)
        }
    }

    /// The standard IMA ADPCM block: a 4-byte header per channel holding one sample, then 4-bit samples.
    private static func imaSamplesPerBlock(blockAlign: Int, channels: Int) -> Int? {
        let payload = blockAlign - 4 * channels
        guard payload >= 0 else { return nil }
        return payload * 2 / channels + 1
    }

    /// Whole blocks × samplesPerBlock, plus the frames of a final partial block.
    private static func imaFrames(dataSize: Int, format: Format) throws(SoundFileError) -> Int {
        guard let samplesPerBlock = format.samplesPerBlock, samplesPerBlock > 0,
            format.blockAlign >= 4 * format.channels
        else {
            throw SoundFileError(
                .malformed,
                reason: "IMA ADPCM with block align \(format.blockAlign) for \(format.channels) channels and no fact chunk")
        }
        let blocks = dataSize / format.blockAlign
        let rest = dataSize % format.blockAlign
        var frames = blocks * samplesPerBlock
        if rest >= 4 * format.channels {
            frames += min((rest - 4 * format.channels) * 2 / format.channels + 1, samplesPerBlock)
        }
        return frames
    }
}
