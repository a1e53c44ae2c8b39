/// Recognises the container from the first 12 bytes and hands over to the container's parser.
enum HeaderParser {
    /// The most chunks walked in one file; more is treated as garbage.
    static let maximumChunks = 4096

    static func parse(_ source: some ByteSource) throws(SoundFileError) -> SoundFileInfo {
        let head = try source.read(at: 0, count: 12)
        let bytes = Bytes(head)
        guard !head.isEmpty else { throw SoundFileError(.truncated, reason: "the file is empty") }
        if head.count < 12 {
            // A prefix of a known header is a cut-off file; anything else is not a sound file at all (nil: any byte).
            func pattern(_ text: String) -> [UInt8?] { text.utf8.map { $0 == UInt8(ascii: "?") ? nil : $0 } }
            let patterns = [pattern("RIFF????WAVE"), pattern("FORM????AIFF"), pattern("FORM????AIFC"), pattern("caff????????")]
            let knownPrefix = patterns.contains { pattern in
                zip(head, pattern).allSatisfy { byte, expected in expected == nil || expected == byte }
            }
            guard knownPrefix else { throw unknown(bytes) }
            throw SoundFileError(.truncated, reason: "the file ends after \(head.count) bytes, inside its header")
        }
        switch (bytes.fourCC(0), bytes.fourCC(8)) {
        case ("RIFF", "WAVE"):
            return try WAVParser.parse(source)
        case ("FORM", "AIFF"):
            return try AIFFParser.parse(source, compressed: false)
        case ("FORM", "AIFC"):
            return try AIFFParser.parse(source, compressed: true)
        case ("caff", _):
            return try CAFParser.parse(source)
        default:
            throw unknown(bytes)
        }
    }

    private static func unknown(_ bytes: Bytes) -> SoundFileError {
        let shown = bytes.bytes.prefix(12).map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "." }.joined()
        return SoundFileError(.unknownContainer, reason: "it starts with \"\(shown)\", not RIFF/WAVE, FORM/AIFF, FORM/AIFC or caff")
    }

    /// Exactly `count` bytes at `offset`, or `truncated` naming `what` was being read.
    static func need(
        _ source: some ByteSource, at offset: Int64, count: Int, for what: String
    ) throws(SoundFileError) -> Bytes {
        let bytes = try source.read(at: offset, count: count)
        guard bytes.count == count else {
            throw SoundFileError(
                .truncated, reason: "\(what) needs \(count) bytes at offset \(offset), \(bytes.count) are present")
        }
        return Bytes(bytes)
    }
}

/// One chunk found while walking a RIFF, IFF or CAF file.
struct Chunk {
    /// The four-character id, such as `fmt ` or `COMM`.
    let id: String
    /// Where the chunk's body starts.
    let bodyOffset: Int64
    /// The body size in bytes as declared (for CAF `data`, −1 already replaced by the rest of the file).
    let size: Int64
    /// Whether the whole declared body lies inside the file.
    let isComplete: Bool
}
