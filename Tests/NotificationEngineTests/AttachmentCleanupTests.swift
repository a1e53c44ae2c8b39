import Foundation
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Testing

/// A store root with files laid out as the app side lays them out: `<root>/<app>/<UUID>/<name>`.
private struct CleanupWorld {
    let folder: URL
    let root: URL
    let system: NotificationTestSystem
    let appID = "com.example.cleanup"

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cleanup-\(UUID().uuidString)")
        root = folder.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        system = try NotificationTestSystem(configuration: .init(attachmentStorePath: root.path))
    }

    var scheduler: NotificationScheduler { system.scheduler }

    /// A stored file for the app.
    func storedFile(_ name: String = "a.png") throws -> URL {
        let directory = root.appendingPathComponent(appID).appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        try Data([1, 2, 3]).write(to: file)
        return file
    }

    func request(_ id: String, _ files: [URL], trigger: TriggerSpec? = .timeInterval(60, repeats: false)) -> RequestSpec {
        var content = NotificationPayload()
        content.title = id
        content.attachments = files.enumerated().map { AttachmentSpec(identifier: "\($0.offset)", url: $0.element, type: "public.png") }
        return RequestSpec(identifier: id, content: content, trigger: trigger)
    }

    func authorize(_ status: AuthorizationStatus = .authorized) async throws {
        try await scheduler.setAuthorization(appID: appID, status: status, options: status == .authorized ? [.alert, .sound, .badge] : [])
    }

    func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
}

@Suite("Deleting stored attachments when notifications go")
struct AttachmentCleanupTests {
    @Test("removing pending requests deletes their stored files, and their folders")
    func removePending() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let (a, b) = (try world.storedFile(), try world.storedFile("b.mp3"))
        try await world.scheduler.add(world.request("a", [a]), appID: world.appID)
        try await world.scheduler.add(world.request("b", [b]), appID: world.appID)
        try await world.scheduler.removePending(appID: world.appID, identifiers: ["a"])
        #expect(!world.exists(a) && !world.exists(a.deletingLastPathComponent()) && world.exists(b))
        try await world.scheduler.removePending(appID: world.appID, identifiers: nil)
        #expect(!world.exists(b))
    }

    @Test("a file two requests share stays until the last one goes")
    func shared() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let file = try world.storedFile()
        try await world.scheduler.add(world.request("a", [file]), appID: world.appID)
        try await world.scheduler.add(world.request("b", [file]), appID: world.appID)
        try await world.scheduler.removePending(appID: world.appID, identifiers: ["a"])
        #expect(world.exists(file))
        try await world.scheduler.removePending(appID: world.appID, identifiers: ["b"])
        #expect(!world.exists(file))
    }

    @Test("files outside the store root are never deleted, nor through a linked folder")
    func outsideRoot() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let outside = world.folder.appendingPathComponent("mine.png")
        try Data([1]).write(to: outside)
        let escape = world.root.appendingPathComponent(world.appID).appendingPathComponent("escape")
        try FileManager.default.createDirectory(at: escape.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: escape, withDestinationURL: world.folder)
        let viaLink = escape.appendingPathComponent("mine.png")
        let dotted = world.root.appendingPathComponent("\(world.appID)/x/../../../mine.png")
        try await world.scheduler.add(world.request("a", [outside, viaLink, dotted]), appID: world.appID)
        try await world.scheduler.removePending(appID: world.appID, identifiers: nil)
        #expect(world.exists(outside))
    }

    @Test("replacing a pending request deletes the file only the old one named")
    func replaced() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let (old, new) = (try world.storedFile(), try world.storedFile())
        try await world.scheduler.add(world.request("a", [old]), appID: world.appID)
        try await world.scheduler.add(world.request("a", [new]), appID: world.appID)
        #expect(!world.exists(old) && world.exists(new))
    }

    @Test("a delivered notification keeps its file until removed; a newer delivery with its identifier replaces it")
    func delivered() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let (first, second) = (try world.storedFile(), try world.storedFile())
        try await world.scheduler.add(world.request("a", [first], trigger: nil), appID: world.appID)
        await world.system.advance(by: 0)
        #expect(world.exists(first))
        try await world.scheduler.add(world.request("a", [second], trigger: nil), appID: world.appID)
        await world.system.advance(by: 0)
        #expect(!world.exists(first) && world.exists(second))
        try await world.scheduler.removeDelivered(appID: world.appID, identifiers: ["a"])
        #expect(!world.exists(second))
    }

    @Test("a one-shot request that fires without being listed leaves no file behind")
    func firedUnlisted() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize(.denied)
        let file = try world.storedFile()
        // Added while allowed, then denied: the fire is recorded as unauthorized and nothing is listed.
        try await world.authorize()
        try await world.scheduler.add(world.request("a", [file]), appID: world.appID)
        try await world.authorize(.denied)
        await world.system.advance(by: 60)
        #expect(try await world.scheduler.deliveredNotifications(appID: world.appID).isEmpty)
        #expect(!world.exists(file))
    }

    @Test("a repeating request keeps its file across deliveries")
    func repeating() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let file = try world.storedFile()
        try await world.scheduler.add(world.request("r", [file], trigger: .timeInterval(60, repeats: true)), appID: world.appID)
        await world.system.advance(by: 180)
        #expect(world.system.presenter.presentations.count == 3 && world.exists(file))
        try await world.scheduler.removeDelivered(appID: world.appID, identifiers: nil)
        #expect(world.exists(file))
        try await world.scheduler.removePending(appID: world.appID, identifiers: nil)
        #expect(!world.exists(file))
    }

    @Test("an answered notification's file goes once the answer is handed over or not routed")
    func answered() async throws {
        let world = try CleanupWorld()
        defer { try? FileManager.default.removeItem(at: world.folder) }
        try await world.authorize()
        let file = try world.storedFile()
        try await world.scheduler.add(world.request("a", [file], trigger: nil), appID: world.appID)
        await world.system.advance(by: 0)
        // A tap is queued for the app (not running): the queued response still names the file.
        try await world.system.respond(to: "a", app: world.appID)
        #expect(world.exists(file))
        let dismissed = try world.storedFile()
        try await world.scheduler.add(world.request("b", [dismissed], trigger: nil), appID: world.appID)
        await world.system.advance(by: 0)
        try await world.system.respond(to: "b", app: world.appID, actionIdentifier: ResponseSpec.dismissActionIdentifier)
        #expect(!world.exists(dismissed))  // a dismissal without customDismissAction reaches nobody
    }
}
