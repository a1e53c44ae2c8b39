import Foundation
import Testing

@testable import NotificationAttachments

@Suite("The attachment data store")
struct AttachmentStoreTests {
    let app = "com.example.app"

    @Test("a file is moved into <root>/<app>/<UUID>/<name>; the original place is empty")
    func moves() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AttachmentStore(rootPath: folder.path + "/store")
        let source = try Fixtures.write(Fixtures.png, "photo.png", in: folder)
        let stored = try store.move(from: source, appID: app, bundleDirectory: nil)
        #expect(stored.method == .moved)
        #expect(!FileManager.default.fileExists(atPath: source))
        #expect(FileManager.default.contents(atPath: stored.path) == Data(Fixtures.png))
        let parts = stored.path.dropFirst(store.rootPath.count + 1).split(separator: "/")
        #expect(parts.count == 3 && parts[0] == "com.example.app" && UUID(uuidString: String(parts[1])) != nil && parts[2] == "photo.png")
        #expect(store.contains(stored.path, appID: app) && !store.contains(stored.path, appID: "other"))
        let mode = try FileManager.default.attributesOfItem(atPath: store.folder(forApp: app))[.posixPermissions] as? Int
        #expect(mode == 0o700)
        // Undo puts it back.
        stored.undo()
        #expect(FileManager.default.contents(atPath: source) == Data(Fixtures.png))
        #expect(!FileManager.default.fileExists(atPath: stored.path))
    }

    @Test("a file in the bundle directory is copied; the original stays")
    func copiesFromBundle() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = folder.appendingPathComponent("App.bundle")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let source = try Fixtures.write(Fixtures.gif, "logo.gif", in: bundle)
        let store = AttachmentStore(rootPath: folder.path + "/store")
        let stored = try store.move(from: source, appID: app, bundleDirectory: bundle.path)
        #expect(stored.method == .copied)
        #expect(FileManager.default.contents(atPath: source) == Data(Fixtures.gif))
        #expect(FileManager.default.contents(atPath: stored.path) == Data(Fixtures.gif))
    }

    @Test("a symbolic link is never moved: its target is copied from the opened file, link and target stay")
    func symbolicLink() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = try Fixtures.write(Fixtures.jpeg, "real.jpg", in: folder)
        let link = folder.appendingPathComponent("link.jpg").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let store = AttachmentStore(rootPath: folder.path + "/store")
        let stored = try store.move(from: link, appID: app, bundleDirectory: nil)
        #expect(stored.method == .copied)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(FileManager.default.contents(atPath: stored.path) == Data(Fixtures.jpeg))
        let type = try FileManager.default.attributesOfItem(atPath: stored.path)[.type] as? FileAttributeType
        #expect(type == .typeRegular)
    }

    @Test("a store that cannot take the file fails with moveIntoDataStoreFailed and leaves the file")
    func readOnlyDestination() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = try Fixtures.write([1], "not-a-folder", in: folder)  // works for root too, unlike chmod
        let store = AttachmentStore(rootPath: blocker + "/store")
        let source = try Fixtures.write(Fixtures.png, "photo.png", in: folder)
        #expect(throws: AttachmentError.self) { try store.move(from: source, appID: app, bundleDirectory: nil) }
        do { _ = try store.move(from: source, appID: app, bundleDirectory: nil) } catch let error as AttachmentError {
            #expect(error.code == 104)
        }
        #expect(FileManager.default.contents(atPath: source) == Data(Fixtures.png))
    }

    @Test("validation comes before the move: an invalid file stays where it is and nothing enters the store")
    func invalidStays() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AttachmentStore(rootPath: folder.path + "/store")
        let broken = try Fixtures.write(Fixtures.pngSignature, "broken.png", in: folder)
        do {
            _ = try store.move(from: broken, appID: app, bundleDirectory: nil)
            Issue.record("a corrupt image was moved")
        } catch let error as AttachmentError {
            #expect(error.code == 105)
        }
        #expect(FileManager.default.fileExists(atPath: broken))
        #expect(!FileManager.default.fileExists(atPath: store.folder(forApp: app)))
    }

    @Test("a file already in the store stays; one that left it is attachmentNotInDataStore")
    func alreadyStored() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AttachmentStore(rootPath: folder.path + "/store")
        let source = try Fixtures.write(Fixtures.png, "photo.png", in: folder)
        let stored = try store.move(from: source, appID: app, bundleDirectory: nil)
        let again = try store.move(from: stored.path, appID: app, bundleDirectory: nil)
        #expect(again.method == .alreadyStored && again.path == stored.path)
        try FileManager.default.removeItem(atPath: stored.path)
        do {
            _ = try store.move(from: stored.path, appID: app, bundleDirectory: nil)
            Issue.record("a missing stored file was accepted")
        } catch let error as AttachmentError {
            #expect(error.code == 103)
        }
    }

    @Test("the default root follows OPENUN_ATTACHMENTS, then XDG_DATA_HOME, then HOME")
    func defaultRoot() {
        #expect(AttachmentStore.defaultRootPath(environment: ["OPENUN_ATTACHMENTS": "/x/a", "HOME": "/h"]) == "/x/a")
        #expect(
            AttachmentStore.defaultRootPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"])
                == "/d/openusernotifications/attachments")
        #expect(AttachmentStore.defaultRootPath(environment: ["HOME": "/h"]) == "/h/.local/share/openusernotifications/attachments")
        #expect(AttachmentStore(rootPath: "/r").folder(forApp: "../evil") == "/r/_._evil")
    }
}
