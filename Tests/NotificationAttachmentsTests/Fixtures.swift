import Foundation

/// Small, well-formed files of every attachment type, and helpers to write them into a temporary folder.
enum Fixtures {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let ihdr: [UInt8] = be32(13) + bytes("IHDR") + be32(1) + be32(1) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
    static let idat: [UInt8] = be32(2) + bytes("IDAT") + [0x78, 0x9C] + [0, 0, 0, 0]
    static let iend: [UInt8] = be32(0) + bytes("IEND") + [0xAE, 0x42, 0x60, 0x82]
    /// A 1×1 PNG.
    static let png: [UInt8] = pngSignature + ihdr + idat + iend
    /// A 1×1 baseline JPEG: SOI, APP0, SOF0, SOS, two bytes of scan data, EOI.
    static let jpeg: [UInt8] =
        [0xFF, 0xD8] + [0xFF, 0xE0, 0x00, 0x10] + bytes("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        + [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00]
        + [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00] + [0x12, 0x34] + [0xFF, 0xD9]
    /// A 1×1 GIF89a with a two-colour table.
    static let gif: [UInt8] =
        bytes("GIF89a") + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + [0x02, 0x02, 0x44, 0x01, 0x00] + [0x3B]
    static let wav: [UInt8] = bytes("RIFF") + [36, 0, 0, 0] + bytes("WAVEfmt ") + [16, 0, 0, 0, 1, 0, 1, 0] + [0x40, 0x1F, 0, 0, 0x40, 0x1F, 0, 0, 1, 0, 8, 0] + bytes("data") + [0, 0, 0, 0]
    static let aiff: [UInt8] = bytes("FORM") + be32(4) + bytes("AIFF")
    static let mp3ID3: [UInt8] = bytes("ID3") + [3, 0, 0, 0, 0, 0, 0]
    static let mp3Frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 12)
    static let m4a: [UInt8] = be32(24) + bytes("ftypM4A ") + be32(0) + bytes("M4A isom")
    static let mp4: [UInt8] = be32(24) + bytes("ftypisom") + be32(0x200) + bytes("isommp41")
    static let mpeg1: [UInt8] = [0x00, 0x00, 0x01, 0xBA, 0x21, 0x00, 0x01, 0x00, 0x01, 0x80]
    static let mpeg2: [UInt8] = [0x00, 0x00, 0x01, 0xBA, 0x44, 0x00, 0x04, 0x00, 0x04, 0x01]
    static let mpegVideo: [UInt8] = [0x00, 0x00, 0x01, 0xB3, 0x01, 0x00, 0x10, 0x13]
    static let avi: [UInt8] = bytes("RIFF") + [4, 0, 0, 0] + bytes("AVI LIST")
    static let webp: [UInt8] = bytes("RIFF") + [4, 0, 0, 0] + bytes("WEBPVP8 ")
    static let heic: [UInt8] = be32(24) + bytes("ftypheic") + be32(0) + bytes("mif1heic")

    /// A fresh temporary folder.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `bytes` to `name` in `folder`.
    @discardableResult
    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Writes `header` then extends the file to `size` bytes without writing them (a sparse file), optionally
    /// putting `trailer` at its very end.
    static func sparse(_ header: [UInt8], size: Int, trailer: [UInt8] = [], _ name: String, in folder: URL) throws -> String {
        let path = try write(header, name, in: folder)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
        if !trailer.isEmpty {
            try handle.seek(toOffset: UInt64(size - trailer.count))
            try handle.write(contentsOf: Data(trailer))
        }
        return path
    }

    /// A PNG of exactly `size` bytes: a private ancillary chunk pads it (sparse), IEND ends it.
    static func png(ofSize size: Int, _ name: String, in folder: URL) throws -> String {
        let head = pngSignature + ihdr + idat
        let padding = size - head.count - 12 - iend.count
        return try sparse(head + be32(padding) + bytes("prVt"), size: size, trailer: [0, 0, 0, 0] + iend, name, in: folder)
    }
}
