import Foundation
import Testing

/// `unotify add --attachment`: the API's attachments from the command line.
@Suite("unotify add --attachment")
struct AttachmentCommandTests {
    /// A 1×1 PNG.
    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1]
        + [8, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2] + Array("IDAT".utf8) + [0x78, 0x9C, 0, 0, 0, 0, 0, 0, 0, 0]
        + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]

    @Test("files are checked, copied into the data store with their identifiers and types, and the originals stay")
    func attachments() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let image = folder.appendingPathComponent("photo.png")
        try Data(Self.png).write(to: image)
        let attachmentStore = folder.appendingPathComponent("attachments")
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_ATTACHMENTS": attachmentStore.path]
        _ = try await runToEnd(
            ["add", "--in", "1h", "--id", "pic", "--attachment", image.path,
             "--attachment", "id=cover,type=public.png,file=\(image.path)"],
            environment: environment)
        let listed = try await runToEnd(["list", "--json"], environment: environment)
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        let attachments = try #require((requests.first?["content"] as? [String: Any])?["attachments"] as? [[String: String]])
        #expect(attachments.map { $0["identifier"] } == ["attachment-1", "cover"])
        #expect(attachments.allSatisfy { $0["type"] == "public.png" })
        for attachment in attachments {
            let url = try #require(attachment["url"].flatMap(URL.init(string:)))
            #expect(url.path.hasPrefix(attachmentStore.path) && FileManager.default.fileExists(atPath: url.path))
        }
        #expect(FileManager.default.fileExists(atPath: image.path))
    }

    @Test("a file that is no image, sound or movie, or none at all: one line, nothing added", arguments: ["text", "missing", "syntax"])
    func refused(kind: String) async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = folder.appendingPathComponent("notes.png")
        try Data("not an image".utf8).write(to: text)
        let value = switch kind {
        case "text": text.path
        case "missing": folder.appendingPathComponent("gone.png").path
        default: "id=x,colour=red,file=\(text.path)"
        }
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded", "OPENUN_ATTACHMENTS": folder.appendingPathComponent("a").path]
        let command = try RunningCommand(["add", "--in", "1h", "--id", "bad", "--attachment", value], environment: environment)
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.hasSuffix("\n") }
        #expect(command.process.terminationStatus != 0)
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(try await runToEnd(["list"], environment: environment).contains("no pending requests"))
    }
}
