import Foundation
import NotificationEngine
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// What the in-process test extensions were told, in order.
final class ExtensionJournal: Sendable {
    let events = Mutex<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

/// An extension whose behaviour the push's `fixture` key picks, like the fixture executable's:
/// `modify` (at once), `attach` (a file at `image`), `late` (only when the time is up), `silent` (never).
final class TestService: UNNotificationServiceExtension, @unchecked Sendable {
    let journal: ExtensionJournal
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttempt: UNMutableNotificationContent?

    init(journal: ExtensionJournal) {
        self.journal = journal
    }

    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        journal.record("didReceive \(request.identifier) push=\(request.trigger is UNPushNotificationTrigger)")
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        switch request.content.userInfo["fixture"] as? String {
        case "late", "silent":
            content.title += " [best attempt]"
            bestAttempt = content
            if request.content.userInfo["fixture"] as? String == "late" { self.contentHandler = contentHandler }
        case "attach":
            let paths = request.content.userInfo["images"] as? [String] ?? []
            content.attachments = paths.enumerated().compactMap { index, path in
                let download = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "download-\(UUID().uuidString).png")
                try? FileManager.default.copyItem(atPath: path, toPath: download.path)
                // The second file is made invalid after creation, as a download that went wrong later would be.
                let attachment = try? UNNotificationAttachment(identifier: "image\(index)", url: download)
                if index == 1 { try? Data("not a png".utf8).write(to: download) }
                return attachment
            }
            content.title += " [modified]"
            contentHandler(content)
        default:
            content.title += " [modified]"
            content.body = "decrypted"
            contentHandler(content)
            contentHandler(request.content)  // a second call changes nothing
        }
    }

    override func serviceExtensionTimeWillExpire() {
        journal.record("timeWillExpire")
        if let contentHandler, let bestAttempt { contentHandler(bestAttempt) }
    }
}

/// A 1×1 PNG.
private let png: [UInt8] = {
    func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(1) + be32(1)
        + [8, 6, 0, 0, 0, 0, 0, 0, 0] + be32(2) + Array("IDAT".utf8) + [0x78, 0x9C, 0, 0, 0, 0] + be32(0)
        + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
}()

private func mutablePush(_ fixture: String, extra: String = "") throws -> RemoteNotification {
    let json = #"{"aps":{"alert":{"title":"Secret","body":"(encrypted)"},"mutable-content":1},"fixture":"\#(fixture)"\#(extra)}"#
    return RemoteNotification(payload: try APNsPayload.parse(Data(json.utf8)), apnsID: "push-\(fixture)")
}

private let app = "com.example.chat"

/// A system whose app registered `TestService` in its process.
private func systemWithExtension(_ mode: NotificationTestSystem.Mode) async throws
    -> (NotificationTestSystem, ExtensionJournal, RemoteNotificationRegistration)
{
    let system = try NotificationTestSystem(mode: mode)
    let remote = RemoteNotificationRegistration(center: try await system.center(for: app))
    let journal = ExtensionJournal()
    remote.setServiceExtension { TestService(journal: journal) }
    await remote.settle()
    return (system, journal, remote)
}

@Suite("Service extensions")
struct ServiceExtensionTests {
    @Test("an extension in the app's process changes a mutable-content push before it is shown", arguments: NotificationTestSystem.Mode.allCases)
    func modifiesInProcess(mode: NotificationTestSystem.Mode) async throws {
        let (system, journal, _) = try await systemWithExtension(mode)
        #expect(try await system.scheduler.deliverPush(try mutablePush("modify"), appID: app) == .modifying)
        await system.scheduler.waitForServiceExtensions()
        #expect(journal.all == ["didReceive push-modify push=true"])
        let shown = system.presenter.presentations
        #expect(shown.map(\.title) == ["Secret [modified]"] && shown.map(\.body) == ["decrypted"])
        #expect(try await system.scheduler.pendingRequests(appID: app).isEmpty)
    }

    @Test("a push without mutable-content, or an app without an extension: shown as it came")
    func notModified() async throws {
        let (system, journal, _) = try await systemWithExtension(.embedded)
        _ = try await system.center(for: "com.example.other")  // authorized, no extension
        let plain = RemoteNotification(payload: try APNsPayload.parse(Data(#"{"aps":{"alert":"Hi"},"fixture":"modify"}"#.utf8)))
        #expect(try await system.scheduler.deliverPush(plain, appID: app) == .scheduled)
        #expect(try await system.scheduler.deliverPush(try mutablePush("modify"), appID: "com.example.other") == .scheduled)
        #expect(journal.all.isEmpty)
        #expect(system.presenter.presentations.map(\.title) == ["", "Secret"])
    }

    @Test("at the deadline serviceExtensionTimeWillExpire() is called and the best attempt is shown", arguments: NotificationTestSystem.Mode.allCases)
    func bestAttempt(mode: NotificationTestSystem.Mode) async throws {
        let (system, journal, _) = try await systemWithExtension(mode)
        #expect(try await system.scheduler.deliverPush(try mutablePush("late"), appID: app) == .modifying)
        await system.advance(by: 29)
        #expect(system.presenter.presentations.isEmpty)
        await system.advance(by: 1)  // 30 s: the budget
        await system.scheduler.waitForServiceExtensions()
        #expect(journal.all == ["didReceive push-late push=true", "timeWillExpire"])
        #expect(system.presenter.presentations.map(\.title) == ["Secret [best attempt]"])
        #expect(system.presenter.presentations.first?.date == system.clock.now)
    }

    @Test("the budget is configurable: 10 s")
    func configuredBudget() async throws {
        var configuration = OpenUserNotificationsConfiguration()
        configuration.serviceExtensionTimeBudget = 10
        let system = try NotificationTestSystem(configuration: configuration)
        let remote = RemoteNotificationRegistration(center: try await system.center(for: app))
        let journal = ExtensionJournal()
        remote.setServiceExtension { TestService(journal: journal) }
        await remote.settle()
        #expect(try await system.scheduler.deliverPush(try mutablePush("late"), appID: app) == .modifying)
        await system.advance(by: 10)
        await system.scheduler.waitForServiceExtensions()
        #expect(journal.all.last == "timeWillExpire")
        #expect(system.presenter.presentations.map(\.title) == ["Secret [best attempt]"])
    }

    @Test("an extension that never answers: the original content after the grace", arguments: NotificationTestSystem.Mode.allCases)
    func neverAnswers(mode: NotificationTestSystem.Mode) async throws {
        let (system, journal, _) = try await systemWithExtension(mode)
        let start = system.clock.now
        #expect(try await system.scheduler.deliverPush(try mutablePush("silent"), appID: app) == .modifying)
        // In daemon mode the push reaches the app's process as an event: let it arrive (bounded) before the clock
        // moves past the budget, or the extension would be told the time is up before it heard of the push.
        for _ in 0..<500 where journal.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        // Meanwhile the original waits in the store, due after budget + grace + margin, for a restarted engine.
        let stored = try #require(try await system.scheduler.store.pendingRequests(appID: app).first)
        #expect(stored.spec.content.title == "Secret" && stored.nextFireDate == start.addingTimeInterval(40))
        await system.advance(by: 30)
        await system.advance(by: 5)
        await system.scheduler.waitForServiceExtensions()
        // The "time is up" event, too, reaches the app's process asynchronously in daemon mode.
        for _ in 0..<500 where journal.all.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(journal.all == ["didReceive push-silent push=true", "timeWillExpire"])
        #expect(system.presenter.presentations.map(\.title) == ["Secret"])
        #expect(system.presenter.presentations.first?.date == start.addingTimeInterval(35))
        #expect(try await system.scheduler.store.pendingRequests(appID: app).isEmpty)
    }

    @Test("attachments an extension downloads are checked and moved into the data store; a bad one is dropped", arguments: NotificationTestSystem.Mode.allCases)
    func attachments(mode: NotificationTestSystem.Mode) async throws {
        let (system, _, _) = try await systemWithExtension(mode)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ext-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("cat.png")
        try Data(png).write(to: image)
        let push = try mutablePush("attach", extra: #","images":["\#(image.path)","\#(image.path)"]"#)
        #expect(try await system.scheduler.deliverPush(push, appID: app) == .modifying)
        await system.scheduler.waitForServiceExtensions()
        let delivered = try #require(try await system.scheduler.deliveredNotifications(appID: app).first)
        let attachments = delivered.request.content.attachments
        #expect(attachments.map(\.identifier) == ["image0"])
        let stored = try #require(attachments.first?.url.path)
        #expect(stored.hasPrefix(system.configuration.resolvedAttachmentStorePath + "/"))
        #expect(FileManager.default.contents(atPath: stored) == Data(png))
        #expect(attachments.first?.type == "public.png")
    }

    @Test("a newer push with the same collapse id while the extension works: the newer one wins")
    func replacedMeanwhile() async throws {
        let (system, _, _) = try await systemWithExtension(.embedded)
        let first = RemoteNotification(
            payload: try APNsPayload.parse(Data(#"{"aps":{"alert":"first","mutable-content":1},"fixture":"late"}"#.utf8)),
            collapseIdentifier: "score")
        let second = RemoteNotification(
            payload: try APNsPayload.parse(Data(#"{"aps":{"alert":"second"}}"#.utf8)), collapseIdentifier: "score")
        #expect(try await system.scheduler.deliverPush(first, appID: app) == .modifying)
        #expect(try await system.scheduler.deliverPush(second, appID: app) == .scheduled)
        await system.advance(by: 30)
        await system.scheduler.waitForServiceExtensions()
        #expect(system.presenter.presentations.map(\.body) == ["second"])
    }

    @Test("background pushes reach the running app's delegate", arguments: NotificationTestSystem.Mode.allCases)
    func backgroundToRunningApp(mode: NotificationTestSystem.Mode) async throws {
        let system = try NotificationTestSystem(mode: mode)
        let remote = RemoteNotificationRegistration(center: try await system.center(for: app))
        let delegate = RecordingRemoteDelegate()
        remote.delegate = delegate
        await remote.settle()
        let push = RemoteNotification(payload: try APNsPayload.parse(Data(#"{"aps":{"content-available":1},"feed":"top"}"#.utf8)))
        #expect(try await system.scheduler.deliverPush(push, appID: app) == .handedToApp)
        #expect(delegate.pushes.withLock { $0 } == [["feed": "top", "aps": "yes"]])
        remote.delegate = nil
        await remote.settle()
        #expect(try await system.scheduler.deliverPush(push, appID: app) == .queued)
    }
}

/// The fixture executable (Tests/Fixtures/ServiceExtensionFixture) declared as the app's extension.
@Suite("Service extension executables")
struct ServiceExtensionProcessTests {
    static func fixture() throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ServiceExtensionFixture")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        let bundle = Bundle.main.bundleURL.appendingPathComponent("ServiceExtensionFixture")
        try #require(FileManager.default.isExecutableFile(atPath: bundle.path), "build ServiceExtensionFixture first")
        return bundle.path
    }

    static func system(_ mode: NotificationTestSystem.Mode) async throws -> NotificationTestSystem {
        let system = try NotificationTestSystem(mode: mode)
        let remote = RemoteNotificationRegistration(center: try await system.center(for: app))
        try await remote.setServiceExtensionCommand([try fixture()])
        return system
    }

    @Test("the declared executable changes the push", arguments: NotificationTestSystem.Mode.allCases)
    func modifies(mode: NotificationTestSystem.Mode) async throws {
        let system = try await Self.system(mode)
        #expect(try await system.scheduler.deliverPush(try mutablePush("modify"), appID: app) == .modifying)
        await system.scheduler.waitForServiceExtensions()
        #expect(system.presenter.presentations.map(\.title) == ["Secret [modified]"])
    }

    @Test("the executable hears timeWillExpire on its input and answers its best attempt")
    func bestAttempt() async throws {
        let system = try await Self.system(.embedded)
        #expect(try await system.scheduler.deliverPush(try mutablePush("late"), appID: app) == .modifying)
        await system.advance(by: 30)
        await system.scheduler.waitForServiceExtensions()
        #expect(system.presenter.presentations.map(\.title) == ["Secret [best attempt]"])
    }

    @Test("an executable that crashes: the original content at once")
    func crashes() async throws {
        let system = try await Self.system(.embedded)
        #expect(try await system.scheduler.deliverPush(try mutablePush("crash"), appID: app) == .modifying)
        await system.scheduler.waitForServiceExtensions()
        #expect(system.presenter.presentations.map(\.title) == ["Secret"])
        #expect(system.presenter.presentations.first?.date == system.clock.now)  // no waiting for the deadline
    }

    @Test("an attachment the executable downloads lands in the engine's data store")
    func attachment() async throws {
        let system = try await Self.system(.embedded)
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("ext-\(UUID().uuidString).png")
        try Data(png).write(to: image)
        defer { try? FileManager.default.removeItem(at: image) }
        let push = try mutablePush("attach", extra: #","image":"\#(image.path)""#)
        #expect(try await system.scheduler.deliverPush(push, appID: app) == .modifying)
        await system.scheduler.waitForServiceExtensions()
        let delivered = try #require(try await system.scheduler.deliveredNotifications(appID: app).first)
        #expect(delivered.request.content.title == "Secret [modified]")
        let stored = try #require(delivered.request.content.attachments.first?.url.path)
        #expect(stored.hasPrefix(system.configuration.resolvedAttachmentStorePath + "/"))
    }

    @Test("a relative command is refused")
    func relativeCommand() async throws {
        let system = try NotificationTestSystem()
        let remote = RemoteNotificationRegistration(center: try await system.center(for: app))
        await #expect(throws: RemoteNotificationRegistrationError.self) {
            try await remote.setServiceExtensionCommand(["bin/extension"])
        }
    }
}
