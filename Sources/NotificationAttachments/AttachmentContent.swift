/// What a file's first bytes (its magic numbers) say it is.
///
/// Recognition by content is what makes a text file named `notes.png` an unrecognized type. Some containers
/// hold more than one of Apple's types (an MPEG-4 file is audio or a movie, an MPEG stream MPEG-1 or MPEG-2),
/// so the answer is a list of candidates, the likeliest first; the file's extension or type hint picks among them.
enum AttachmentContent: Equatable {
    /// One of Apple's types; the candidates the bytes allow, likeliest first.
    case supported([AttachmentKind])
    /// A format recognized but not one Apple accepts as an attachment (the name, for the message).
    case unsupported(String)
    /// Nothing recognized.
    case unknown

    /// How many leading bytes ``init(header:)`` looks at.
    static let headerLength = 64

    /// Classifies a file by its first bytes (up to ``headerLength``).
    init(header bytes: [UInt8]) {
        func matches(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { matches(Array(text.utf8), at: offset) }

        if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .supported([.png])
        } else if matches([0xFF, 0xD8, 0xFF]) {
            self = .supported([.jpeg])
        } else if ascii("GIF87a") || ascii("GIF89a") {
            self = .supported([.gif])
        } else if ascii("RIFF"), bytes.count >= 12 {
            if ascii("WAVE", at: 8) {
                self = .supported([.wav])
            } else if ascii("AVI ", at: 8) {
                self = .supported([.avi])
            } else if ascii("WEBP", at: 8) {
                self = .unsupported("WebP image")
            } else {
                self = .unknown
            }
        } else if ascii("FORM"), bytes.count >= 12, ascii("AIFF", at: 8) || ascii("AIFC", at: 8) {
            self = .supported([.aiff])
        } else if ascii("ftyp", at: 4), bytes.count >= 12 {
            self = Self.isoBaseMedia(bytes)
        } else if matches([0x00, 0x00, 0x01, 0xBA]), bytes.count >= 5 {
            // A program stream pack header: '01' after the start code is MPEG-2, '0010' MPEG-1.
            self = .supported(bytes[4] & 0xC0 == 0x40 ? [.mpeg2Video, .mpeg] : [.mpeg, .mpeg2Video])
        } else if matches([0x00, 0x00, 0x01, 0xB3]) {
            // A video sequence header opens MPEG-1 and MPEG-2 elementary streams alike.
            self = .supported([.mpeg, .mpeg2Video])
        } else if ascii("ID3") || Self.isMPEGAudioFrame(bytes) {
            self = .supported([.mp3])
        } else if ascii("OggS") {
            self = .unsupported("Ogg")
        } else if ascii("fLaC") {
            self = .unsupported("FLAC audio")
        } else if ascii("caff") {
            self = .unsupported("Core Audio Format")
        } else if matches([0x1A, 0x45, 0xDF, 0xA3]) {
            self = .unsupported("Matroska or WebM")
        } else if ascii("BM") {
            self = .unsupported("BMP image")
        } else if matches([0x49, 0x49, 0x2A, 0x00]) || matches([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .unsupported("TIFF image")
        } else {
            self = .unknown
        }
    }

    /// An ISO base media file (`ftyp` box): MPEG-4 audio, an MPEG-4 movie, or HEIF/QuickTime/3GPP (not Apple's
    /// attachment types).
    private static func isoBaseMedia(_ bytes: [UInt8]) -> AttachmentContent {
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16  // after the major brand and the minor version: the compatible brands
        while offset + 4 <= min(bytes.count, max(boxSize, 16)) {
            brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        let major = brands[0]
        let audio: Set<String> = ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]
        let heif: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"]
        let mpeg4: Set<String> = [
            "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "mp71", "avc1", "M4V ", "M4VH", "M4VP",
            "F4V ", "F4P ", "dash", "mmp4", "MSNV", "NDAS", "NDSC", "NDSH", "NDSM", "NDSP", "NDSS", "NDXC", "NDXH",
            "NDXM", "NDXP", "NDXS",
        ]
        if audio.contains(major) { return .supported([.mpeg4Audio, .mpeg4]) }
        if heif.contains(major) { return .unsupported("HEIF/HEIC image") }
        if major == "qt  " { return .unsupported("QuickTime movie") }
        if major.hasPrefix("3g") { return .unsupported("3GPP movie") }
        if mpeg4.contains(major) || brands.contains(where: mpeg4.contains) { return .supported([.mpeg4, .mpeg4Audio]) }
        return .unsupported("ISO media file of brand '\(major)'")
    }

    /// An MPEG audio frame header: 11 sync bits, a defined version and layer, a valid bitrate and sample rate.
    private static func isMPEGAudioFrame(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
        let version = (bytes[1] >> 3) & 0x03  // 01 is reserved
        let layer = (bytes[1] >> 1) & 0x03  // 00 is reserved (and ADTS AAC)
        let bitrate = bytes[2] >> 4  // 1111 is invalid
        let sampleRate = (bytes[2] >> 2) & 0x03  // 11 is reserved
        return version != 0x01 && layer != 0x00 && bitrate != 0x0F && sampleRate != 0x03
    }
}
