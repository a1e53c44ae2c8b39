import Foundation
import NotificationDelivery
import NotificationModel
import OpenUserNotifications
import OpenUserNotificationsTesting
import Synchronization
import Testing

/// Languages the test changes between scheduling and delivery.
private final class DeliveryLanguages: Sendable {
    private let value: Mutex<[String]>
    init(_ languages: [String]) { value = Mutex(languages) }
    func set(_ languages: [String]) { value.withLock { $0 = languages } }
    var provider: @Sendable () -> [String] { { self.value.withLock { $0 } } }
}

/// An app folder with English and Simplified Chinese `Localizable.strings`.
private func makeAppFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-l10n-\(UUID().uuidString)")
    for (language, text) in [
        ("en", #""Wake up!" = "Wake up!"; "Rise and shine! It's %@!" = "Rise and shine! It's %@!"; "%d%% charged" = "%d%% charged";"#),
        ("zh-Hans", #""Wake up!" = "起床了！"; "Rise and shine! It's %@!" = "起床啦！现在是%@！"; "%d%% charged" = "已充电 %d%%";"#),
    ] {
        let lproj = folder.appendingPathComponent("\(language).lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
    }
    return folder
}

/// `localizedUserNotificationString` with the app's folder set for this task only (other tests run alongside).
private func localized(_ key: String, _ arguments: [Any]?, in folder: URL) -> String {
    UserNotificationLocalization.$bundleDirectoryOverride.withValue(folder.path) {
        NSString.localizedUserNotificationString(forKey: key, arguments: arguments)
    }
}

@Suite("API: localizedUserNotificationString at delivery time")
struct LocalizationAPITests {
    @Test("content made under en_US and delivered under zh_CN.UTF-8 shows the Chinese strings", arguments: NotificationTestSystem.Mode.allCases)
    func deliveredInTheLanguageOfDelivery(mode: NotificationTestSystem.Mode) async throws {
        let folder = try makeAppFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let languages = DeliveryLanguages(["en_US"])
        let system = try NotificationTestSystem(
            mode: mode, configuration: OpenUserNotificationsConfiguration(deliveryLanguages: languages.provider))
        let center = try await system.center(for: "com.example.alarm")

        let content = UNMutableNotificationContent()
        content.title = localized("Wake up!", nil, in: folder)
        content.body = localized("Rise and shine! It's %@!", ["7:00"], in: folder)
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
        try await center.add(UNNotificationRequest(identifier: "alarm", content: content, trigger: trigger))

        // Pending: the encoded value, which names the key.
        let pending = try #require(await center.pendingNotificationRequests().first)
        #expect(LocalizableString.decode(pending.content.title)?.key == "Wake up!")
        #expect(LocalizableString.decode(pending.content.body)?.arguments == [.string("7:00")])

        languages.set(["zh_CN.UTF-8"])
        #expect(await system.advance(by: 60) == 1)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.title == "起床了！")
        #expect(shown.body == "起床啦！现在是7:00！")
        let delivered = try #require(await center.deliveredNotifications().first)
        #expect(delivered.request.content.title == "起床了！")
        #expect(delivered.request.content.body == "起床啦！现在是7:00！")
    }

    @Test("a format with %% and an integer argument shows one % after the body's printf rule", arguments: NotificationTestSystem.Mode.allCases)
    func percent(mode: NotificationTestSystem.Mode) async throws {
        let folder = try makeAppFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(
            mode: mode, configuration: OpenUserNotificationsConfiguration(deliveryLanguages: { ["zh_CN.UTF-8"] }))
        let center = try await system.center(for: "com.example.battery")
        let content = UNMutableNotificationContent()
        content.title = localized("%d%% charged", [80], in: folder)
        content.body = localized("%d%% charged", [80], in: folder)
        try await center.add(UNNotificationRequest(identifier: "battery", content: content, trigger: nil))
        await system.advance(by: 0)
        let delivered = try #require(await center.deliveredNotifications().first)
        #expect(delivered.request.content.title == "已充电 80%")
        #expect(TerminalPresenter.displayBody(delivered.request.content.body) == "已充电 80%")
    }

    @Test("a missing key shows the key, formatted with the arguments")
    func missingKey() async throws {
        let folder = try makeAppFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = try NotificationTestSystem(configuration: OpenUserNotificationsConfiguration(deliveryLanguages: { ["zh_CN"] }))
        let center = try await system.center(for: "com.example.app")
        let content = UNMutableNotificationContent()
        content.title = localized("Not in any table", nil, in: folder)
        content.body = localized("%@ has %d new items", ["Inbox", 3], in: folder)
        try await center.add(UNNotificationRequest(identifier: "m", content: content, trigger: nil))
        await system.advance(by: 0)
        let shown = try #require(system.presenter.presentations.first)
        #expect(shown.title == "Not in any table")
        #expect(shown.body == "Inbox has 3 new items")
    }

    @Test("without tables and without formatting, the key itself is returned (what delivery would show)")
    func keyWithoutTables() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("api-l10n-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(localized("Wake up!", nil, in: empty) == "Wake up!")
        #expect(localized("Wake up!", [], in: empty) == "Wake up!")
        // Formatting waits for delivery: whether the text is a body (printf rule) is known only then.
        let formatted = try #require(LocalizableString.decode(localized("%d left", [2], in: empty)))
        #expect(formatted.key == "%d left")
        #expect(formatted.bundleDirectory == empty.standardizedFileURL.path)
    }

    @Test("arguments keep their types")
    func argumentTypes() throws {
        let folder = try makeAppFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments: [Any] = [3, 2.5, "text", NSNumber(value: 7), NSNumber(value: 0.25), true, UInt64.max, Float(1.5), Date(timeIntervalSince1970: 0)]
        let value = try #require(LocalizableString.decode(localized("k", arguments, in: folder)))
        #expect(value.arguments[..<8] == [.int(3), .double(2.5), .string("text"), .int(7), .double(0.25), .int(1), .uint(.max), .double(1.5)])
        guard case .string = value.arguments[8] else {
            Issue.record("a Date is passed by its description")
            return
        }
    }

    @Test("the configuration reads OPENUN_BUNDLE_DIR")
    func environment() {
        #expect(OpenUserNotificationsConfiguration.fromEnvironment(["OPENUN_BUNDLE_DIR": "/opt/app"]).resolvedBundleDirectory == "/opt/app")
        #expect(OpenUserNotificationsConfiguration.fromEnvironment([:]).bundleDirectory == nil)
    }
}
