import Foundation
import Glibc
import Testing

@testable import NotificationAttachments

private func code(_ body: () throws -> Void) -> Int? {
    do { try body() } catch let error as AttachmentError { return error.code } catch {}
    return nil
}

@Suite("Attachment validation by Apple's rules")
struct AttachmentValidatorTests {
    @Test(
        "every type Apple lists is recognised by its content",
        arguments: [
            (Fixtures.png, "a.png", AttachmentKind.png), (Fixtures.jpeg, "a.jpg", .jpeg), (Fixtures.gif, "a.gif", .gif),
            (Fixtures.aiff, "a.aiff", .aiff), (Fixtures.wav, "a.wav", .wav), (Fixtures.mp3ID3, "a.mp3", .mp3),
            (Fixtures.mp3Frame, "b.mp3", .mp3), (Fixtures.m4a, "a.m4a", .mpeg4Audio), (Fixtures.mpeg1, "a.mpg", .mpeg),
            (Fixtures.mpeg2, "a.m2v", .mpeg2Video), (Fixtures.mpegVideo, "v.m2v", .mpeg2Video),
            (Fixtures.mp4, "a.mp4", .mpeg4), (Fixtures.avi, "a.avi", .avi), (Fixtures.mp4, "generic.m4a", .mpeg4Audio),
        ])
    func recognised(bytes: [UInt8], name: String, kind: AttachmentKind) throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Fixtures.write(bytes, name, in: folder)
        let checked = try AttachmentValidator.validate(path: path, typeHint: nil)
        #expect(checked.kind == kind)
        #expect(checked.size == bytes.count)
    }

    @Test("content against extension and type hint")
    func contentAndExtension() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Same category: the content names the type (decoders read images by content).
        let pngAsJPEG = try Fixtures.write(Fixtures.png, "photo.jpg", in: folder)
        #expect(try AttachmentValidator.validate(path: pngAsJPEG, typeHint: nil).kind == .png)
        // Another category, a text file, a format Apple does not list, no extension: unrecognized.
        let pngAsMP3 = try Fixtures.write(Fixtures.png, "photo.mp3", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: pngAsMP3, typeHint: nil) } == 101)
        let text = try Fixtures.write(Fixtures.bytes("just some text, not an image"), "notes.png", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: text, typeHint: nil) } == 101)
        let webp = try Fixtures.write(Fixtures.webp, "a.png", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: webp, typeHint: nil) } == 101)
        let heic = try Fixtures.write(Fixtures.heic, "a.jpg", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: heic, typeHint: nil) } == 101)
        let bare = try Fixtures.write(Fixtures.png, "photo", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: bare, typeHint: nil) } == 101)
        let unknownExtension = try Fixtures.write(Fixtures.png, "photo.webp", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: unknownExtension, typeHint: nil) } == 101)
        // A hint replaces the extension: a specific UTI, or a general one naming the category.
        #expect(try AttachmentValidator.validate(path: bare, typeHint: "public.png").kind == .png)
        #expect(try AttachmentValidator.validate(path: bare, typeHint: "public.image").kind == .png)
        #expect(try AttachmentValidator.validate(path: unknownExtension, typeHint: "public.jpeg").kind == .png)
        #expect(code { _ = try AttachmentValidator.validate(path: bare, typeHint: "public.mp3") } == 101)
        #expect(code { _ = try AttachmentValidator.validate(path: bare, typeHint: "public.heic") } == 101)
    }

    @Test(
        "size limits: the exact limit is accepted, one byte more is refused",
        arguments: [(AttachmentCategory.image, 10_000_000), (.audio, 5_000_000), (.movie, 50_000_000)])
    func sizeLimits(category: AttachmentCategory, limit: Int) throws {
        #expect(category.maximumSize == limit)
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ size: Int, _ name: String) throws -> String {
            switch category {
            case .image: try Fixtures.png(ofSize: size, name + ".png", in: folder)
            case .audio: try Fixtures.sparse(Fixtures.wav, size: size, name + ".wav", in: folder)
            case .movie: try Fixtures.sparse(Fixtures.mp4, size: size, name + ".mp4", in: folder)
            }
        }
        let exact = try file(limit, "exact")
        #expect(try AttachmentValidator.validate(path: exact, typeHint: nil).size == limit)
        let over = try file(limit + 1, "over")
        #expect(code { _ = try AttachmentValidator.validate(path: over, typeHint: nil) } == 102)
        let empty = try Fixtures.write([], "empty.png", in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: empty, typeHint: nil) } == 102)
    }

    @Test("missing files, folders, devices, FIFOs and dangling or escaping links are invalid URLs")
    func invalidURLs() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(code { _ = try AttachmentValidator.validate(path: folder.path + "/missing.png", typeHint: nil) } == 100)
        let directory = folder.appendingPathComponent("dir.png")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        #expect(code { _ = try AttachmentValidator.validate(path: directory.path, typeHint: nil) } == 100)
        let fifo = folder.appendingPathComponent("pipe.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(code { _ = try AttachmentValidator.validate(path: fifo, typeHint: nil) } == 100)
        let dangling = folder.appendingPathComponent("dangling.png").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder.path + "/nothing.png")
        #expect(code { _ = try AttachmentValidator.validate(path: dangling, typeHint: nil) } == 100)
        for outside in ["/dev/zero", "/proc/self/environ", "/sys/kernel/notes"] {
            let link = folder.appendingPathComponent("link-\(UUID().uuidString).png").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)
            #expect(code { _ = try AttachmentValidator.validate(path: link, typeHint: nil) } == 100, "\(outside)")
        }
        let loop = folder.appendingPathComponent("loop.png").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        #expect(code { _ = try AttachmentValidator.validate(path: loop, typeHint: nil) } == 100)
    }

    @Test("files and link targets the user cannot read are invalid URLs", .enabled(if: getuid() != 0, "root reads every file"))
    func unreadable() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = try Fixtures.write(Fixtures.png, "secret.png", in: folder)
        #expect(chmod(secret, 0) == 0)
        #expect(code { _ = try AttachmentValidator.validate(path: secret, typeHint: nil) } == 100)
        let link = folder.appendingPathComponent("link.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
        #expect(code { _ = try AttachmentValidator.validate(path: link, typeHint: nil) } == 100)
        #expect(code { _ = try AttachmentValidator.validate(path: "/etc/shadow", typeHint: "public.png") } == 100)
    }

    @Test(
        "broken images are corrupt when their structure is checked",
        arguments: [
            ("signature only", Fixtures.pngSignature, "a.png"),
            ("no IEND", Fixtures.pngSignature + Fixtures.ihdr + Fixtures.idat, "b.png"),
            ("no IHDR first", Fixtures.pngSignature + Fixtures.idat + Fixtures.iend, "c.png"),
            ("chunk cut off", Array(Fixtures.png.dropLast(14)), "d.png"),
            ("JPEG without EOI", Array(Fixtures.jpeg.dropLast(2)), "a.jpg"),
            ("JPEG without a frame", [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0x00, 0xFF, 0xD9], "b.jpg"),
            ("JPEG of a header only", [0xFF, 0xD8, 0xFF, 0xE0], "c.jpg"),
            ("GIF header only", Fixtures.bytes("GIF89a"), "a.gif"),
            ("GIF cut inside the image", Array(Fixtures.gif.dropLast(3)), "b.gif"),
        ])
    func corrupt(label: String, bytes: [UInt8], name: String) throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Fixtures.write(bytes, name, in: folder)
        #expect(code { _ = try AttachmentValidator.validate(path: path, typeHint: nil) } == 105, "\(label)")
        #expect(try AttachmentValidator.validate(path: path, typeHint: nil, checkStructure: false).kind.category == .image)
    }

    @Test("a GIF without its trailer but with whole blocks is accepted, as decoders accept it")
    func gifWithoutTrailer() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Fixtures.write(Array(Fixtures.gif.dropLast()), "a.gif", in: folder)
        #expect(try AttachmentValidator.validate(path: path, typeHint: nil).kind == .gif)
    }
}
