/// Core Audio Format: `"caff" u16 version u16 flags`, then big-endian chunks `{type[4], i64 size, body}`.
///
/// A `data` size of −1 means "to the end of the file" and is only allowed for the last chunk.
enum CAFParser {
    private struct Description {
        var sampleRate: Double
        var formatID: String
        var formatFlags: UInt32
        var bytesPerPacket: Int
        var framesPerPacket: Int
        var channels: Int
        var bitsPerChannel: Int
    }

    static func parse(_ source: some ByteSource) throws(SoundFileError) -> SoundFileInfo {
        let fileHeader = try HeaderParser.need(source, at: 0, count: 8, for: "the CAF file header")
        guard fileHeader.uint16BE(4) == 1 else {
            throw SoundFileError(.malformed, reason: "CAF version \(fileHeader.uint16BE(4) ?? 0), not 1")
        }
        var description: Description?
        var dataSize: Int64?
        var validFrames: Int64?
        var ranOut = false
        var offset: Int64 = 8
        var walked = 0
        while offset < source.length {
            walked += 1
            guard walked <= HeaderParser.maximumChunks else {
                throw SoundFileError(.malformed, reason: "more than \(HeaderParser.maximumChunks) chunks")
            }
            let header = Bytes(try source.read(at: offset, count: 12))
            guard let id = header.fourCC(0), let rawSize = header.uint64BE(4) else {
                ranOut = true
                break
            }
            var size = Int64(bitPattern: rawSize)
            let body = offset + 12
            let present = source.length - body
            if size == -1 && id == "data" {
                size = present
            }
            guard size >= 0 else { throw SoundFileError(.malformed, reason: "the \(id) chunk has size \(size)") }
            let complete = size <= present
            switch id {
            case "desc":
                guard complete else { throw cut("the desc chunk", size, present) }
                description = try parseDescription(source, at: body, size: size)
            case "data":
                guard complete else { throw cut("the data chunk", size, present) }
                guard size >= 4 else {
                    throw SoundFileError(.malformed, reason: "the data chunk is \(size) bytes, less than its 4-byte edit count")
                }
                dataSize = size - 4
            case "pakt":
                guard complete else { throw cut("the pakt chunk", size, present) }
                let table = try HeaderParser.need(source, at: body, count: 24, for: "the pakt chunk")
                guard let frames = table.uint64BE(8).map({ Int64(bitPattern: $0) }), frames >= 0 else {
                    throw SoundFileError(.malformed, reason: "the pakt chunk has a negative frame count")
                }
                validFrames = frames
            default:
                if !complete { ranOut = true }
            }
            if !complete { break }
            offset = body + size
        }
        guard let description else {
            throw SoundFileError(ranOut ? .truncated : .malformed, reason: "no desc chunk before the end of the file")
        }
        guard let dataSize else {
            throw SoundFileError(ranOut ? .truncated : .malformed, reason: "no data chunk before the end of the file")
        }
        let frames: Int64
        if let validFrames {
            frames = validFrames
        } else if description.bytesPerPacket > 0, description.framesPerPacket > 0 {
            let packets = dataSize / Int64(description.bytesPerPacket)
            let (product, overflow) = packets.multipliedReportingOverflow(by: Int64(description.framesPerPacket))
            guard !overflow else { throw SoundFileError(.malformed, reason: "the frame count overflows") }
            frames = product
        } else {
            throw SoundFileError(
                .malformed, reason: "variable packet sizes ('\(description.formatID)') without a pakt chunk")
        }
        return SoundFileInfo(
            container: .caf, codec: codec(of: description), channels: description.channels,
            sampleRate: description.sampleRate, frames: Int(frames))
    }

    private static func cut(_ what: String, _ size: Int64, _ present: Int64) -> SoundFileError {
        SoundFileError(.truncated, reason: "\(what) declares \(size) bytes, \(max(present, 0)) are present")
    }

    /// `desc` (32 bytes): f64 sampleRate, fourcc formatID, u32 formatFlags, u32 bytesPerPacket, u32 framesPerPacket,
    /// u32 channelsPerFrame, u32 bitsPerChannel.
    private static func parseDescription(
        _ source: some ByteSource, at offset: Int64, size: Int64
    ) throws(SoundFileError) -> Description {
        guard size >= 32 else { throw SoundFileError(.malformed, reason: "the desc chunk is \(size) bytes, less than 32") }
        let body = try HeaderParser.need(source, at: offset, count: 32, for: "the desc chunk")
        guard let rateBits = body.uint64BE(0), let formatID = body.fourCC(8), let flags = body.uint32BE(12),
            let bytesPerPacket = body.uint32BE(16), let framesPerPacket = body.uint32BE(20),
            let channels = body.uint32BE(24), let bits = body.uint32BE(28)
        else { throw SoundFileError(.truncated, reason: "the desc chunk is cut short") }
        let rate = Double(bitPattern: rateBits)
        guard rate.isFinite, rate > 0 else {
            throw SoundFileError(.malformed, reason: "the desc chunk says a sample rate of \(rate)")
        }
        guard channels > 0 else { throw SoundFileError(.malformed, reason: "the desc chunk says 0 channels") }
        return Description(
            sampleRate: rate, formatID: formatID, formatFlags: flags, bytesPerPacket: Int(bytesPerPacket),
            framesPerPacket: Int(framesPerPacket), channels: Int(channels), bitsPerChannel: Int(bits))
    }

    private static func codec(of description: Description) -> SoundFileInfo.Codec {
        switch description.formatID {
        case "lpcm": .linearPCM(isFloat: description.formatFlags & 1 != 0, bitsPerSample: description.bitsPerChannel)
        case "ima4": .imaADPCM
        case "ulaw": .muLaw
        case "alaw": .aLaw
        default: .other("CAF format '\(description.formatID)'")
        }
    }
}
