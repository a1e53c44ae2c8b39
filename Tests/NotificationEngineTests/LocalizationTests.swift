import Foundation
import Logging
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// Languages a test changes between scheduling and delivery, as a person changes LANG.
private final class Languages: Sendable {
    private let value: Mutex<[String]>
    init(_ languages: [String]) { value = Mutex(languages) }
    func set(_ languages: [String]) { value.withLock { $0 = languages } }
    var provider: @Sendable () -> [String] { { self.value.withLock { $0 } } }
}

/// Log messages kept for assertions.
private final class CapturedLog: Sendable {
    private let messages = Mutex<[(Logger.Level, String)]>([])
    var entries: [(Logger.Level, String)] { messages.withLock { $0 } }
    func append(_ level: Logger.Level, _ message: String) { messages.withLock { $0.append((level, message)) } }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { log.append(event.level, "\(event.message)") }
    }

    var logger: Logger { Logger(label: "test") { _ in Handler(log: self) } }
}

/// A temporary app folder with English and Simplified Chinese tables.
private func makeBundle(catalog: Bool = false) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("engine-l10n-\(UUID().uuidString)")
    if catalog {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json = #"""
            {"sourceLanguage": "en", "version": "1.0", "strings": {
              "wake.title": {"localizations": {
                "en": {"stringUnit": {"state": "translated", "value": "Wake up!"}},
                "zh-Hans": {"stringUnit": {"state": "translated", "value": "起床了！"}}}},
              "wake.body": {"localizations": {
                "en": {"stringUnit": {"state": "translated", "value": "%d minutes to %@"}},
                "zh-Hans": {"stringUnit": {"state": "translated", "value": "距离%2$@还有 %1$d 分钟"}}}}}}
            """#
        try Data(json.utf8).write(to: folder.appendingPathComponent("Localizable.xcstrings"))
        return folder
    }
    for (language, text) in [
        ("en", #""wake.title" = "Wake up!"; "wake.body" = "%d minutes to %@"; "done" = "%d%% done";"#),
        ("zh-Hans", #""wake.title" = "起床了！"; "wake.body" = "距离%2$@还有 %1$d 分钟"; "done" = "已完成 %d%%";"#),
    ] {
        let lproj = folder.appendingPathComponent("\(language).lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
    }
    return folder
}

private let appID = "com.example.l10n"

private func makeEngine(_ languages: Languages, logger: Logger = Logger(label: "test")) async throws
    -> (NotificationScheduler, ManualNotificationClock, RecordingPresenter)
{
    var configuration = EngineConfiguration()
    configuration.deliveryLanguages = languages.provider
    let clock = ManualNotificationClock(now: instant("2026-01-05T09:00:00Z"))
    let presenter = RecordingPresenter()
    let scheduler = NotificationScheduler(
        store: try SQLiteNotificationStore(), clock: clock, presenter: presenter, configuration: configuration, logger: logger)
    try await scheduler.setAuthorization(appID: appID, status: .authorized, options: [.alert, .sound])
    return (scheduler, clock, presenter)
}

private func wakeRequest(bundle: URL, repeats: Bool = false) -> RequestSpec {
    var content = NotificationPayload()
    content.title = LocalizableString(key: "wake.title", bundleDirectory: bundle.path).encoded
    content.subtitle = "plain " + LocalizableString(key: "wake.title", bundleDirectory: bundle.path).encoded
    content.body = LocalizableString(key: "wake.body", arguments: [.int(5), .string("7:00")], bundleDirectory: bundle.path).encoded
    return RequestSpec(identifier: "wake", content: content, trigger: .timeInterval(60, repeats: repeats))
}

@Suite("Engine: localization at delivery time")
struct EngineLocalizationTests {
    @Test("scheduled under en_US, delivered under zh_CN.UTF-8: the Chinese strings are delivered", arguments: [false, true])
    func scheduleInOneLanguageDeliverInAnother(catalog: Bool) async throws {
        let bundle = try makeBundle(catalog: catalog)
        defer { try? FileManager.default.removeItem(at: bundle) }
        let languages = Languages(["en_US"])
        let (scheduler, clock, presenter) = try await makeEngine(languages)
        let spec = wakeRequest(bundle: bundle)
        try await scheduler.add(spec, appID: appID)

        languages.set(["zh_CN.UTF-8"])
        clock.advance(by: 60)
        #expect(await scheduler.deliverDue() == 1)

        let shown = try #require(presenter.presentations.first)
        #expect(shown.title == "起床了！")
        #expect(shown.body == "距离7:00还有 5 分钟")
        let delivered = try #require(try await scheduler.deliveredNotifications(appID: appID).first)
        #expect(delivered.request.content.title == "起床了！")
        #expect(delivered.request.content.subtitle == "plain 起床了！")
        #expect(delivered.request.content.body == "距离7:00还有 5 分钟")
        let history = try #require(try await scheduler.store.history(appID: appID, limit: 10).first)
        #expect(history.title == "起床了！")
    }

    @Test("a repeating request is resolved again at each delivery, in the languages of that moment")
    func repeatingFollowsTheLanguage() async throws {
        let bundle = try makeBundle()
        defer { try? FileManager.default.removeItem(at: bundle) }
        let languages = Languages(["en_US.UTF-8"])
        let (scheduler, clock, presenter) = try await makeEngine(languages)
        let spec = wakeRequest(bundle: bundle, repeats: true)
        try await scheduler.add(spec, appID: appID)

        clock.advance(by: 60)
        await scheduler.deliverDue()
        languages.set(["zh_CN.UTF-8"])
        clock.advance(by: 60)
        await scheduler.deliverDue()
        languages.set(["C"])
        clock.advance(by: 60)
        await scheduler.deliverDue()

        #expect(presenter.presentations.map(\.title) == ["Wake up!", "起床了！", "Wake up!"])
        #expect(presenter.presentations.map(\.body) == ["5 minutes to 7:00", "距离7:00还有 5 分钟", "5 minutes to 7:00"])
        // The pending request keeps the encoded strings, to be resolved again next time.
        let pending = try #require(try await scheduler.pendingRequests(appID: appID).first)
        #expect(pending.spec.content == spec.content)
    }

    @Test("%% in a localized body: the formatted % reaches the presenter as %% and shows once")
    func percentInBody() async throws {
        let bundle = try makeBundle()
        defer { try? FileManager.default.removeItem(at: bundle) }
        let (scheduler, clock, presenter) = try await makeEngine(Languages(["zh_CN.UTF-8"]))
        var content = NotificationPayload()
        content.title = LocalizableString(key: "done", arguments: [.int(50)], bundleDirectory: bundle.path).encoded
        content.body = content.title
        try await scheduler.add(RequestSpec(identifier: "p", content: content, trigger: nil), appID: appID)
        clock.advance(by: 0)
        await scheduler.deliverDue()
        let shown = try #require(presenter.presentations.first)
        #expect(shown.title == "已完成 50%")
        #expect(shown.body == "已完成 50%%")  // the presenter's printf rule shows "已完成 50%"
    }

    @Test("a missing key shows the key; a corrupt table shows the key and says so in the log")
    func missingAndCorrupt() async throws {
        let bundle = try makeBundle()
        defer { try? FileManager.default.removeItem(at: bundle) }
        try Data(#""wake.title" = "起床了！""#.utf8)
            .write(to: bundle.appendingPathComponent("zh-Hans.lproj/Localizable.strings"))
        let log = CapturedLog()
        let (scheduler, clock, presenter) = try await makeEngine(Languages(["zh_CN.UTF-8"]), logger: log.logger)
        var content = NotificationPayload()
        content.title = LocalizableString(key: "wake.title", bundleDirectory: bundle.path).encoded
        content.body = LocalizableString(key: "No such key", bundleDirectory: bundle.path).encoded
        try await scheduler.add(RequestSpec(identifier: "c", content: content, trigger: nil), appID: appID)
        clock.advance(by: 0)
        #expect(await scheduler.deliverDue() == 1)
        let shown = try #require(presenter.presentations.first)
        #expect(shown.title == "Wake up!")  // zh-Hans is unreadable: the development language
        #expect(shown.body == "No such key")
        #expect(log.entries.contains { $0.0 == .warning && $0.1.contains("zh-Hans.lproj/Localizable.strings") })
        #expect(log.entries.contains { $0.1.contains("\"No such key\"") })
    }

    @Test("content without encoded strings is delivered untouched")
    func plainContent() async throws {
        let languages = Languages(["zh_CN.UTF-8"])
        let (scheduler, clock, presenter) = try await makeEngine(languages)
        var content = NotificationPayload()
        content.title = "Plain %d"
        content.body = "50%% off"
        try await scheduler.add(RequestSpec(identifier: "plain", content: content, trigger: nil), appID: appID)
        clock.advance(by: 0)
        await scheduler.deliverDue()
        #expect(presenter.presentations.map(\.title) == ["Plain %d"])
        #expect(presenter.presentations.map(\.body) == ["50%% off"])
    }

    @Test("the default languages come from the process environment")
    func defaultProvider() {
        let expected = UserLanguagesProbe.fromProcess()
        #expect(EngineConfiguration().deliveryLanguages() == expected)
    }
}

/// The environment's languages computed independently of the engine's default.
private enum UserLanguagesProbe {
    static func fromProcess() -> [String] {
        let environment = ProcessInfo.processInfo.environment
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].compactMap { environment[$0] }.first { !$0.isEmpty }
        if let locale, locale == "C" || locale == "POSIX" || locale.hasPrefix("C.") || locale.hasPrefix("POSIX.") {
            return [locale]
        }
        return (locale.map { [$0] } ?? []) + (environment["LANGUAGE"] ?? "").split(separator: ":").map(String.init)
    }
}
