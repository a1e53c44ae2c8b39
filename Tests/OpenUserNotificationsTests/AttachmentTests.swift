import Foundation
import OpenUserNotifications
import OpenUserNotificationsTesting
import Testing

/// A 1×1 PNG, and helpers for a temporary world: the files, the data store and the bundle directory.
enum AttachmentWorld {
    static func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(1) + be32(1)
        + [8, 6, 0, 0, 0, 0, 0, 0, 0] + be32(2) + Array("IDAT".utf8) + [0x78, 0x9C, 0, 0, 0, 0] + be32(0)
        + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unattach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    static func configuration(_ folder: URL, store: String? = nil) -> OpenUserNotificationsConfiguration {
        OpenUserNotificationsConfiguration(
            bundleDirectory: folder.appendingPathComponent("App.bundle").path,
            attachmentStorePath: store ?? folder.appendingPathComponent("store").path)
    }

    static func request(_ id: String, _ attachment: UNNotificationAttachment, trigger: UNNotificationTrigger? = nil)
        -> UNNotificationRequest
    {
        let content = UNMutableNotificationContent()
        content.title = id
        content.attachments = [attachment]
        return UNNotificationRequest(identifier: id, content: content, trigger: trigger)
    }
}

private func code(_ body: () throws -> Void) -> UNError.Code? {
    do { try body() } catch let error as UNError { return error.code } catch {}
    return nil
}

private func code(_ body: () async throws -> Void) async -> UNError.Code? {
    do { try await body() } catch let error as UNError { return error.code } catch {}
    return nil
}

private let attachmentApp = "com.example.attachments"

@Suite("Attachments through the API")
struct AttachmentTests {
    @Test("creation checks the file and keeps the options")
    func creation() throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try AttachmentWorld.write(AttachmentWorld.png, "photo", in: folder)
        let attachment = try UNNotificationAttachment(
            identifier: "", url: png,
            options: [
                UNNotificationAttachmentOptionsTypeHintKey: "public.png",
                UNNotificationAttachmentOptionsThumbnailHiddenKey: true,
                UNNotificationAttachmentOptionsThumbnailClippingRectKey: CGRect(x: 0.25, y: 0, width: 0.5, height: 1),
                UNNotificationAttachmentOptionsThumbnailTimeKey: 2.5,
            ])
        #expect(attachment.type == "public.png" && !attachment.identifier.isEmpty && attachment.url == png)
        let options = attachment.spec.options
        #expect(options[UNNotificationAttachmentOptionsTypeHintKey] == .string("public.png"))
        #expect(options[UNNotificationAttachmentOptionsThumbnailHiddenKey] == .bool(true))
        #expect(
            options[UNNotificationAttachmentOptionsThumbnailClippingRectKey]
                == .dictionary(["X": .double(0.25), "Y": .double(0), "Width": .double(0.5), "Height": .double(1)]))
        #expect(options[UNNotificationAttachmentOptionsThumbnailTimeKey] == .double(2.5))
        let rect: [String: Any] = ["X": 0, "Y": 0, "Width": 1, "Height": 0.5]
        let withDictionary = try UNNotificationAttachment(
            identifier: "d", url: png,
            options: [UNNotificationAttachmentOptionsTypeHintKey: "public.png", UNNotificationAttachmentOptionsThumbnailClippingRectKey: rect])
        #expect(
            withDictionary.spec.options[UNNotificationAttachmentOptionsThumbnailClippingRectKey]
                == .dictionary(["X": .integer(0), "Y": .integer(0), "Width": .integer(1), "Height": .double(0.5)]))

        #expect(code { _ = try UNNotificationAttachment(identifier: "m", url: folder.appendingPathComponent("missing.png")) } == .attachmentInvalidURL)
        #expect(code { _ = try UNNotificationAttachment(identifier: "h", url: URL(string: "https://example.com/a.png")!) } == .attachmentInvalidURL)
        let text = try AttachmentWorld.write(Array("hello".utf8), "notes.png", in: folder)
        #expect(code { _ = try UNNotificationAttachment(identifier: "t", url: text) } == .attachmentUnrecognizedType)
        #expect(code { _ = try UNNotificationAttachment(identifier: "n", url: png) } == .attachmentUnrecognizedType)
        let big = folder.appendingPathComponent("big.wav")
        let wav: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        _ = FileManager.default.createFile(atPath: big.path, contents: Data(wav + [UInt8](repeating: 0, count: 5_000_001 - wav.count)))
        #expect(code { _ = try UNNotificationAttachment(identifier: "b", url: big) } == .attachmentInvalidFileSize)
    }

    @Test(
        "add moves the file into the data store; the delivered notification names it; removing it deletes the file",
        arguments: NotificationTestSystem.Mode.allCases)
    func moveDeliverRemove(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(mode: mode, configuration: AttachmentWorld.configuration(folder))
        let center = try await system.center(for: attachmentApp)
        let source = try AttachmentWorld.write(AttachmentWorld.png, "photo.png", in: folder)
        let attachment = try UNNotificationAttachment(identifier: "photo", url: source)
        try await center.add(AttachmentWorld.request("now", attachment))
        #expect(!FileManager.default.fileExists(atPath: source.path))
        let storeFolder = folder.appendingPathComponent("store/\(attachmentApp)").path
        await system.advance(by: 0)
        let delivered = try #require(await center.deliveredNotifications().first)
        let stored = try #require(delivered.request.content.attachments.first)
        #expect(stored.identifier == "photo" && stored.type == "public.png")
        #expect(stored.url.path.hasPrefix(storeFolder + "/") && stored.url.lastPathComponent == "photo.png")
        #expect(FileManager.default.contents(atPath: stored.url.path) == Data(AttachmentWorld.png))
        center.removeDeliveredNotifications(withIdentifiers: ["now"])
        await system.settle(center)
        #expect(!FileManager.default.fileExists(atPath: stored.url.path))
        #expect(!FileManager.default.fileExists(atPath: stored.url.deletingLastPathComponent().path))
    }

    @Test("removing a pending request deletes its file; a file in the bundle directory is copied", arguments: NotificationTestSystem.Mode.allCases)
    func pendingRemovalAndBundle(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(mode: mode, configuration: AttachmentWorld.configuration(folder))
        let center = try await system.center(for: attachmentApp)
        let bundle = folder.appendingPathComponent("App.bundle")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let source = try AttachmentWorld.write(AttachmentWorld.png, "logo.png", in: bundle)
        let later = UNTimeIntervalNotificationTrigger(timeInterval: 600, repeats: false)
        try await center.add(AttachmentWorld.request("later", try UNNotificationAttachment(identifier: "logo", url: source), trigger: later))
        #expect(FileManager.default.contents(atPath: source.path) == Data(AttachmentWorld.png))
        let pending = try #require(await center.pendingNotificationRequests().first?.content.attachments.first)
        #expect(pending.url.path.hasPrefix(folder.appendingPathComponent("store").path + "/"))
        #expect(FileManager.default.fileExists(atPath: pending.url.path))
        center.removePendingNotificationRequests(withIdentifiers: ["later"])
        await system.settle(center)
        #expect(!FileManager.default.fileExists(atPath: pending.url.path))
        #expect(FileManager.default.fileExists(atPath: source.path))
    }

    @Test(
        "a batch add that replaces a pending request deletes its file, and keeps the files of those it does not",
        arguments: NotificationTestSystem.Mode.allCases)
    func batchReplacement(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(mode: mode, configuration: AttachmentWorld.configuration(folder))
        let center = try await system.center(for: attachmentApp)
        let later = UNTimeIntervalNotificationTrigger(timeInterval: 600, repeats: false)
        for id in ["replaced", "kept"] {
            let source = try AttachmentWorld.write(AttachmentWorld.png, "\(id).png", in: folder)
            let attachment = try UNNotificationAttachment(identifier: id, url: source)
            try await center.add(AttachmentWorld.request(id, attachment, trigger: later))
        }
        let pending = await center.pendingNotificationRequests()
        let files = Dictionary(uniqueKeysWithValues: pending.map { ($0.identifier, $0.content.attachments[0].url.path) })
        #expect(files.values.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        let plain = UNMutableNotificationContent()
        plain.title = "no attachment now"
        _ = try await center.add(contentsOf: [
            UNNotificationRequest(identifier: "replaced", content: plain, trigger: later),
            UNNotificationRequest(identifier: "new", content: plain, trigger: later),
        ])
        await system.settle(center)
        #expect(!FileManager.default.fileExists(atPath: try #require(files["replaced"])))
        #expect(FileManager.default.fileExists(atPath: try #require(files["kept"])))
        #expect(Set(await center.pendingNotificationRequests().map(\.identifier)) == ["replaced", "kept", "new"])
    }

    @Test("a repeating request keeps its file across deliveries until the request and its notification are gone", arguments: NotificationTestSystem.Mode.allCases)
    func repeating(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(mode: mode, configuration: AttachmentWorld.configuration(folder))
        let center = try await system.center(for: attachmentApp)
        let source = try AttachmentWorld.write(AttachmentWorld.png, "tick.png", in: folder)
        let every = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true)
        try await center.add(AttachmentWorld.request("tick", try UNNotificationAttachment(identifier: "t", url: source), trigger: every))
        await system.advance(by: 60)
        await system.advance(by: 60)
        #expect(system.presenter.presentations.count == 2)
        let stored = try #require(await center.deliveredNotifications().first?.request.content.attachments.first?.url)
        #expect(FileManager.default.fileExists(atPath: stored.path))
        center.removeAllDeliveredNotifications()
        await system.settle(center)
        #expect(FileManager.default.fileExists(atPath: stored.path))  // the request still names it
        await system.advance(by: 60)
        center.removeAllPendingNotificationRequests()
        await system.settle(center)
        #expect(FileManager.default.fileExists(atPath: stored.path))  // the listed notification still names it
        center.removeAllDeliveredNotifications()
        await system.settle(center)
        #expect(!FileManager.default.fileExists(atPath: stored.path))
    }

    @Test("a failing add leaves the file where it was and adds nothing", arguments: NotificationTestSystem.Mode.allCases)
    func failures(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = try AttachmentWorld.write([1], "blocker", in: folder)  // a file where the store's folder should be
        let system = try NotificationTestSystem(
            mode: mode, configuration: AttachmentWorld.configuration(folder, store: blocker.path + "/store"))
        let center = try await system.center(for: attachmentApp)
        let source = try AttachmentWorld.write(AttachmentWorld.png, "photo.png", in: folder)
        let attachment = try UNNotificationAttachment(identifier: "p", url: source)
        #expect(await code { try await center.add(AttachmentWorld.request("a", attachment)) } == .attachmentMoveIntoDataStoreFailed)
        #expect(FileManager.default.contents(atPath: source.path) == Data(AttachmentWorld.png))
        #expect(await center.pendingNotificationRequests().isEmpty)

        // The completion-handler form reports the same.
        let reported = await withCheckedContinuation { continuation in
            center.add(AttachmentWorld.request("b", attachment)) { continuation.resume(returning: ($0 as? UNError)?.code) }
        }
        #expect(reported == .attachmentMoveIntoDataStoreFailed)

        // Checked again at add: a corrupt image, and a file that changed after creation.
        let working = try NotificationTestSystem(mode: mode, configuration: AttachmentWorld.configuration(folder))
        let other = try await working.center(for: attachmentApp)
        let broken = try AttachmentWorld.write(Array(AttachmentWorld.png.prefix(20)), "broken.png", in: folder)
        let brokenAttachment = try UNNotificationAttachment(identifier: "c", url: broken)
        #expect(await code { try await other.add(AttachmentWorld.request("c", brokenAttachment)) } == .attachmentCorrupt)
        #expect(FileManager.default.fileExists(atPath: broken.path))
        try Data("now text".utf8).write(to: source)
        #expect(await code { try await other.add(AttachmentWorld.request("d", attachment)) } == .attachmentUnrecognizedType)
        try FileManager.default.removeItem(at: source)
        #expect(await code { try await other.add(AttachmentWorld.request("e", attachment)) } == .attachmentInvalidURL)
        #expect(await other.pendingNotificationRequests().isEmpty)
    }

    @Test("an add the engine refuses moves the file back", arguments: NotificationTestSystem.Mode.allCases)
    func refusedMovesBack(mode: NotificationTestSystem.Mode) async throws {
        let folder = try AttachmentWorld.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = AttachmentWorld.configuration(folder)
        configuration.authorizationPolicy = .deny
        let system = try NotificationTestSystem(mode: mode, configuration: configuration)
        let center = try await system.center(for: attachmentApp, authorize: false)
        #expect(try await center.requestAuthorization(options: [.alert]) == false)
        let source = try AttachmentWorld.write(AttachmentWorld.png, "photo.png", in: folder)
        let attachment = try UNNotificationAttachment(identifier: "p", url: source)
        #expect(await code { try await center.add(AttachmentWorld.request("a", attachment)) } == .notificationsNotAllowed)
        #expect(FileManager.default.contents(atPath: source.path) == Data(AttachmentWorld.png))
        let appFolder = folder.appendingPathComponent("store/\(attachmentApp)").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: appFolder)) ?? []).isEmpty)
    }
}
