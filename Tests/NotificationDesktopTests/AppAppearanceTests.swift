import DBusKit
import Foundation
import NotificationDesktop
import NotificationEngine
import NotificationModel
import Testing

/// The app's name and icon: read from its Info.plist, and given to the server as `app_name` and `app_icon`.
@Suite("App name and icon")
struct AppAppearanceTests {
    /// A temporary app folder with `Info.plist` holding `entries` (written by `subfolder` when given) and empty
    /// files at `files`.
    static func bundle(_ entries: [String: String], in subfolder: String = "", files: [String] = []) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString)")
        let plistFolder = folder.appendingPathComponent(subfolder)
        try FileManager.default.createDirectory(at: plistFolder, withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(fromPropertyList: entries, format: .xml, options: 0)
        try data.write(to: plistFolder.appendingPathComponent("Info.plist"))
        for file in files {
            let url = folder.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([0x89]).write(to: url)
        }
        return folder
    }

    @Test("CFBundleDisplayName and a CFBundleIconFile beside the Info.plist, without its extension")
    func displayNameAndIconFile() throws {
        let folder = try Self.bundle(
            ["CFBundleDisplayName": "Nag Me", "CFBundleName": "nagme", "CFBundleIconFile": "AppIcon"],
            files: ["AppIcon.png"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let appearance = try #require(AppAppearance.fromInfoPlist(inBundleDirectory: folder))
        #expect(appearance.displayName == "Nag Me")
        #expect(appearance.icon == folder.appendingPathComponent("AppIcon.png").standardizedFileURL.path)
    }

    @Test("a macOS bundle: Contents/Info.plist, CFBundleName, an .icns icon shown through the PNG in Resources")
    func macOSBundleLayout() throws {
        let folder = try Self.bundle(
            ["CFBundleName": "Weather", "CFBundleIconFile": "Weather.icns"], in: "Contents",
            files: ["Contents/Resources/Weather.icns", "Contents/Resources/Weather.png"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let appearance = try #require(AppAppearance.fromInfoPlist(inBundleDirectory: folder))
        #expect(appearance.displayName == "Weather")
        #expect(appearance.icon == folder.appendingPathComponent("Contents/Resources/Weather.png").standardizedFileURL.path)
    }

    @Test(
        "without an image file the icon is a theme name: CFBundleIconName, else CFBundleIconFile's stem",
        arguments: [
            (["CFBundleIconName": "mail-unread", "CFBundleIconFile": "Missing.png"], "mail-unread"),
            (["CFBundleIconFile": "org.example.Tasks.icns"], "org.example.Tasks"),
        ])
    func themeNames(entries: [String: String], icon: String) throws {
        let folder = try Self.bundle(entries)
        defer { try? FileManager.default.removeItem(at: folder) }
        let appearance = try #require(AppAppearance.fromInfoPlist(inBundleDirectory: folder))
        #expect(appearance.icon == icon)
        #expect(appearance.displayName == nil)
    }

    @Test("no Info.plist, or one with neither a name nor an icon: nothing")
    func nothing() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString)")
        #expect(AppAppearance.fromInfoPlist(inBundleDirectory: empty) == nil)
        let folder = try Self.bundle(["CFBundleIdentifier": "com.example.only-id"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(AppAppearance.fromInfoPlist(inBundleDirectory: folder) == nil)
    }

    @Test("a push gets the name and icon of the Info.plist in the app's registered folder")
    func pushContent() throws {
        let folder = try Self.bundle(["CFBundleDisplayName": "Chat", "CFBundleIconName": "internet-chat"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let payload = try APNsPayload.parse(Data(#"{"aps":{"alert":"hi"}}"#.utf8))
        #expect(payload.content(bundleDirectory: folder.path).appAppearance == AppAppearance(displayName: "Chat", icon: "internet-chat"))
        #expect(payload.content(bundleDirectory: nil).appAppearance == nil)
    }

    static func notification(_ appearance: AppAppearance?, senderImage: URL? = nil) -> DeliveredNotification {
        var content = NotificationPayload()
        content.title = "Water the plants"
        content.appAppearance = appearance
        if let senderImage {
            content.communication = CommunicationSpec(senderName: "Ana", senderImageURL: senderImage)
        }
        return DeliveredNotification(
            appID: "com.example.plants", request: RequestSpec(identifier: "n", content: content, trigger: nil),
            date: Date(timeIntervalSince1970: 0), dueDate: Date(timeIntervalSince1970: 0), presentation: [.banner])
    }

    static let server = NotificationServerInfo(
        name: "test", vendor: "", version: "", specificationVersion: "1.2", capabilities: ["body", "actions"])

    @Test("Notify's app_name and app_icon: the app's name and icon, else its identifier and the server's default")
    func notifyArguments() {
        let shown = NotifyRequest(
            Self.notification(AppAppearance(displayName: "Plants", icon: "/opt/plants/icon.png")), options: [.banner],
            category: nil, server: Self.server)
        #expect(shown.appName == "Plants" && shown.appIcon == "/opt/plants/icon.png")
        #expect(shown.arguments(replacing: 0).prefix(3) == [.string("Plants"), .uint32(0), .string("/opt/plants/icon.png")])
        let plain = NotifyRequest(Self.notification(nil), options: [.banner], category: nil, server: Self.server)
        #expect(plain.appName == "com.example.plants" && plain.appIcon == "")
        let message = NotifyRequest(
            Self.notification(AppAppearance(icon: "plants"), senderImage: URL(fileURLWithPath: "/tmp/ana.png")),
            options: [.banner], category: nil, server: Self.server)
        #expect(message.appIcon == "/tmp/ana.png", "the sender's picture takes the icon's place")
    }
}
