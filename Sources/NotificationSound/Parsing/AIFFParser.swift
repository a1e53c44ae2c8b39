/// AIFF and AIFF-C: big-endian chunks `{id[4], u32 size, body, pad to even}` after `"FORM" u32 "AIFF"|"AIFC"`.
enum AIFFParser {
    private struct Common {
        var channels: Int
        var numSampleFrames: Int
        var sampleSize: Int
        var sampleRate: Double
        var compression: String?
    }

    static func parse(_ source: some ByteSource, compressed: Bool) throws(SoundFileError) -> SoundFileInfo {
        var common: Common?
        var foundSound = false
        var ranOut = false
        var offset: Int64 = 12
        var walked = 0
        while offset < source.length {
            walked += 1
            guard walked <= HeaderParser.maximumChunks else {
                throw SoundFileError(.malformed, reason: "more than \(HeaderParser.maximumChunks) chunks")
            }
            let header = Bytes(try source.read(at: offset, count: 8))
            guard let id = header.fourCC(0), let size32 = header.uint32BE(4) else {
                ranOut = true
                break
            }
            let size = Int64(size32)
            let body = offset + 8
            let present = source.length - body
            let complete = size <= present
            switch id {
            case "COMM":
                guard complete else { throw cut("the COMM chunk", size, present) }
                common = try parseCommon(source, at: body, size: size, compressed: compressed)
            case "SSND":
                guard complete else { throw cut("the SSND chunk", size, present) }
                guard size >= 8 else {
                    throw SoundFileError(.malformed, reason: "the SSND chunk is \(size) bytes, less than 8")
                }
                foundSound = true
            default:
                if !complete { ranOut = true }
            }
            if !complete { break }
            offset = body + size + (size & 1)
        }
        guard let common else {
            throw SoundFileError(ranOut ? .truncated : .malformed, reason: "no COMM chunk before the end of the file")
        }
        guard foundSound || common.numSampleFrames == 0 else {
            throw SoundFileError(ranOut ? .truncated : .malformed, reason: "no SSND chunk before the end of the file")
        }
        let codec = codec(of: common)
        // Apple's ima4 in AIFC: numSampleFrames counts packets of 64 frames (34 bytes per channel each).
        let (frames, overflow) =
            codec == .imaADPCM ? common.numSampleFrames.multipliedReportingOverflow(by: 64) : (common.numSampleFrames, false)
        guard !overflow else { throw SoundFileError(.malformed, reason: "too many ima4 packets") }
        return SoundFileInfo(
            container: compressed ? .aifc : .aiff, codec: codec, channels: common.channels,
            sampleRate: common.sampleRate, frames: frames)
    }

    private static func cut(_ what: String, _ size: Int64, _ present: Int64) -> SoundFileError {
        SoundFileError(.truncated, reason: "\(what) declares \(size) bytes, \(max(present, 0)) are present")
    }

    /// `COMM`: i16 channels, u32 numSampleFrames, i16 sampleSize, 80-bit extended sampleRate; AIFC adds the
    /// compression type and a Pascal-string name.
    private static func parseCommon(
        _ source: some ByteSource, at offset: Int64, size: Int64, compressed: Bool
    ) throws(SoundFileError) -> Common {
        let needed = compressed ? 22 : 18
        guard size >= Int64(needed) else {
            throw SoundFileError(.malformed, reason: "the COMM chunk is \(size) bytes, less than \(needed)")
        }
        let body = try HeaderParser.need(source, at: offset, count: needed, for: "the COMM chunk")
        guard let channels = body.uint16BE(0), let frames = body.uint32BE(2), let bits = body.uint16BE(6),
            let rate = body.extended80(8)
        else { throw SoundFileError(.truncated, reason: "the COMM chunk is cut short") }
        let signedChannels = Int16(bitPattern: channels)
        guard signedChannels > 0 else {
            throw SoundFileError(.malformed, reason: "the COMM chunk says \(signedChannels) channels")
        }
        guard rate.isFinite, rate > 0 else {
            throw SoundFileError(.malformed, reason: "the COMM chunk says a sample rate of \(rate)")
        }
        return Common(
            channels: Int(signedChannels), numSampleFrames: Int(frames), sampleSize: Int(Int16(bitPattern: bits)),
            sampleRate: rate, compression: compressed ? body.fourCC(18) : nil)
    }

    private static func codec(of common: Common) -> SoundFileInfo.Codec {
        switch common.compression {
        case nil, "NONE", "twos", "sowt", "in24", "in32", "42ni", "23ni":
            return .linearPCM(isFloat: false, bitsPerSample: common.sampleSize)
        case "fl32", "FL32":
            return .linearPCM(isFloat: true, bitsPerSample: 32)
        case "fl64", "FL64":
            return .linearPCM(isFloat: true, bitsPerSample: 64)
        case "ulaw", "ULAW":
            return .muLaw
        case "alaw", "ALAW":
            return .aLaw
        case "ima4":
            return .imaADPCM
        case let other?:
            return .other("AIFC compression '\(other)'")
        }
    }
}
