import Foundation
import Testing

@testable import UnotifyCLI

/// `unotify add --icon` and `--app-name`, and the Info.plist in `--bundle-dir`: the app's name and icon on the
/// desktop, carried in the request's content.
@Suite("unotify add --icon and --app-name")
struct AppIconCommandTests {
    static func appearance(_ listing: String, id: String) throws -> [String: Any]? {
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [[String: Any]])
        let request = try #require(requests.first { $0["identifier"] as? String == id })
        return (request["content"] as? [String: Any])?["appAppearance"] as? [String: Any]
    }

    @Test("--icon FILE and --app-name, an icon name, and the Info.plist of --bundle-dir")
    func appearances() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let icon = folder.appendingPathComponent("icon.png")
        try Data(AttachmentCommandTests.png).write(to: icon)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleName": "Plants", "CFBundleIconFile": "icon.png"], format: .xml, options: 0)
        try plist.write(to: folder.appendingPathComponent("Info.plist"))
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let common = ["--store", store, "--mode", "embedded"]
        _ = try await execute(
            ["add", "--in", "1h", "--id", "file", "--icon", icon.path, "--app-name", "My Tasks", "--bundle-dir", empty.path]
                + common)
        _ = try await execute(["add", "--in", "1h", "--id", "name", "--icon", "mail-unread", "--bundle-dir", empty.path] + common)
        _ = try await execute(["add", "--in", "1h", "--id", "plist", "--bundle-dir", folder.path] + common)
        _ = try await execute(["add", "--in", "1h", "--id", "none", "--bundle-dir", empty.path] + common)
        let listing = try await execute(["list", "--json"] + common)
        let file = try #require(try Self.appearance(listing, id: "file"))
        #expect(file["displayName"] as? String == "My Tasks" && file["icon"] as? String == icon.standardizedFileURL.path)
        let name = try #require(try Self.appearance(listing, id: "name"))
        #expect(name["displayName"] is NSNull && name["icon"] as? String == "mail-unread")
        let fromPlist = try #require(try Self.appearance(listing, id: "plist"))
        #expect(fromPlist["displayName"] as? String == "Plants")
        #expect(fromPlist["icon"] as? String == icon.standardizedFileURL.path)
        #expect(try Self.appearance(listing, id: "none") == nil)
    }

    @Test("an icon file that cannot be read, or a name with spaces: one line, nothing added", arguments: ["missing", "spaces"])
    func refused(kind: String) async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let value = kind == "missing" ? folder.appendingPathComponent("gone.png").path : "two words"
        let environment = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        let command = try RunningCommand(["add", "--in", "1h", "--id", "bad", "--icon", value], environment: environment)
        await command.waitForExit()
        _ = await command.wait(upTo: 1) { _, err in err.hasSuffix("\n") }
        #expect(command.process.terminationStatus != 0)
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("--icon"))
        #expect(try await runToEnd(["list"], environment: environment).contains("no pending requests"))
    }
}
