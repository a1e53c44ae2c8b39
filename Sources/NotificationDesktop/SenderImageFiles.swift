import Foundation

/// Files for the senders' images of communication notifications that came as bytes (`INImage(imageData:)`):
/// notification servers take an image by path. One file per distinct image, named by a hash of its bytes, in a
/// folder of the user's under the temporary directory.
enum SenderImageFiles {
    /// The folder: `$TMPDIR/openusernotifications-<uid>/senders`.
    static var folder: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("openusernotifications-\(getuid())/senders")
    }

    /// The path of a file holding `data`, written when missing; `nil` when it cannot be written.
    static func file(for data: Data) -> String? {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let file = folder.appendingPathComponent(String(hash, radix: 16) + "." + fileExtension(of: data))
        if FileManager.default.fileExists(atPath: file.path) { return file.path }
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try data.write(to: file, options: .atomic)
            return file.path
        } catch {
            return nil
        }
    }

    /// The extension for the image's format, from its first bytes.
    static func fileExtension(of data: Data) -> String {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if data.starts(with: Array("GIF8".utf8)) { return "gif" }
        return "img"
    }
}
