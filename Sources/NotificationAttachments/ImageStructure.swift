/// Checks that an image's structure is whole, the way a decoder would find out it is not: the attachment is
/// `attachmentCorrupt` when the magic bytes say image but the rest is broken or cut off.
///
/// The checks walk the container (PNG chunks, JPEG segments, GIF blocks); they do not decompress pixels, and
/// they do not verify PNG checksums.
enum ImageStructure {
    /// Why `bytes`, the whole file, is not a well-formed image of `kind`; `nil` when it is (or `kind` is no image).
    static func problem(in bytes: [UInt8], kind: AttachmentKind) -> String? {
        switch kind {
        case .png: png(bytes)
        case .jpeg: jpeg(bytes)
        case .gif: gif(bytes)
        default: nil
        }
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// PNG: the signature, an `IHDR` chunk first (13 bytes, non-zero width and height), at least one `IDAT`, and an
    /// `IEND` chunk, every chunk whole.
    static func png(_ bytes: [UInt8]) -> String? {
        var offset = 8
        var sawData = false
        var first = true
        while offset + 12 <= bytes.count {
            let length = bigEndian32(bytes, offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
                return "its \(type) chunk is cut off"
            }
            if first {
                guard type == "IHDR", length == 13 else { return "it does not start with an IHDR chunk" }
                guard bigEndian32(bytes, offset + 8) > 0, bigEndian32(bytes, offset + 12) > 0 else {
                    return "its IHDR chunk gives a zero width or height"
                }
                first = false
            }
            if type == "IDAT" { sawData = true }
            if type == "IEND" { return sawData ? nil : "it has no IDAT chunk" }
            offset += 12 + length
        }
        return first ? "it has no IHDR chunk" : "it has no IEND chunk (the file is cut off)"
    }

    /// JPEG: SOI, whole marker segments with a frame header (SOF) before the first scan (SOS), and an EOI marker
    /// after the scan data.
    static func jpeg(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return "it does not start with SOI" }
        var offset = 2
        var sawFrame = false
        while true {
            guard offset + 1 < bytes.count else { return "it ends before its image data (no SOS marker)" }
            guard bytes[offset] == 0xFF else { return "a marker is missing at byte \(offset)" }
            while offset + 1 < bytes.count, bytes[offset + 1] == 0xFF { offset += 1 }  // fill bytes
            guard offset + 1 < bytes.count else { return "it ends inside a marker" }
            let marker = bytes[offset + 1]
            offset += 2
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue
            case 0xD8:
                return "it has a second SOI marker before its image data"
            case 0xD9:
                return "it ends (EOI) before any image data"
            default:
                break
            }
            guard offset + 2 <= bytes.count else { return "a segment header is cut off" }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2, offset + length <= bytes.count else { return "a segment is cut off" }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard length >= 8, Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) > 0 else {
                    return "its frame header gives no width"
                }
                sawFrame = true
            }
            offset += length
            if marker == 0xDA {
                guard sawFrame else { return "its scan comes before any frame header (SOF)" }
                var end = bytes.count - 1
                while end > offset {
                    if bytes[end - 1] == 0xFF, bytes[end] == 0xD9 { return nil }
                    end -= 1
                }
                return "it has no EOI marker after its image data (the file is cut off)"
            }
        }
    }

    /// GIF: the header and logical screen descriptor, whole colour tables, extension and image blocks whose
    /// sub-blocks are whole, and at least one image. A missing trailer after whole blocks is accepted, as
    /// decoders do.
    static func gif(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 13 else { return "it is cut off inside its header" }
        func colourTableLength(_ flags: UInt8) -> Int { flags & 0x80 == 0 ? 0 : 3 * (1 << (Int(flags & 0x07) + 1)) }
        var offset = 13 + colourTableLength(bytes[10])
        var images = 0
        func skipSubBlocks() -> Bool {
            while offset < bytes.count {
                let size = Int(bytes[offset])
                offset += 1 + size
                if size == 0 { return offset <= bytes.count }
            }
            return false
        }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3B:
                return images > 0 ? nil : "it has no image"
            case 0x21:
                offset += 2
                guard skipSubBlocks() else { return "an extension block is cut off" }
            case 0x2C:
                guard offset + 10 <= bytes.count else { return "an image descriptor is cut off" }
                offset += 10 + colourTableLength(bytes[offset + 9])
                offset += 1  // LZW minimum code size
                guard offset <= bytes.count, skipSubBlocks() else { return "an image's data is cut off" }
                images += 1
            default:
                return "it has an unknown block (0x\(String(bytes[offset], radix: 16))) at byte \(offset)"
            }
        }
        guard offset == bytes.count else { return "its last block is cut off" }
        return images > 0 ? nil : "it has no image (the file is cut off)"
    }
}
