import Foundation
import OpenUserNotifications
import Testing

@Suite("Configuration and app identity")
struct ConfigurationTests {
    @Test("the bundle identifier comes from Info.plist, then configuration, then the executable's name")
    func appIdentity() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let executable = folder.appendingPathComponent("Nag Me")
        #expect(AppIdentity.resolve(configured: nil, executableURL: executable) == "local.Nag-Me")
        #expect(AppIdentity.resolve(configured: "com.example.configured", executableURL: executable) == "com.example.configured")
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleIdentifier": "com.example.nagme"], format: .xml, options: 0)
        try plist.write(to: folder.appendingPathComponent("Info.plist"))
        #expect(AppIdentity.resolve(configured: "com.example.configured", executableURL: executable) == "com.example.nagme")
    }

    @Test("the environment configures the store, the app, the cap and the policy")
    func environment() {
        let configuration = OpenUserNotificationsConfiguration.fromEnvironment([
            "OPENUN_STORE": "/tmp/x.sqlite", "OPENUN_BUNDLE_ID": "com.example.env", "OPENUN_PENDING_CAP": "off",
            "OPENUN_AUTHORIZATION": "deny",
        ])
        #expect(configuration.storePath == "/tmp/x.sqlite")
        #expect(configuration.resolvedStorePath == "/tmp/x.sqlite")
        #expect(configuration.bundleIdentifier == "com.example.env")
        #expect(configuration.pendingCap == nil)
        #expect(configuration.authorizationPolicy == .deny)
        let defaults = OpenUserNotificationsConfiguration.fromEnvironment([:])
        #expect(defaults.pendingCap == 64 && defaults.authorizationPolicy == .grantRequested && defaults.storePath == nil)
        #expect(OpenUserNotificationsConfiguration.fromEnvironment(["OPENUN_PENDING_CAP": "10"]).pendingCap == 10)
        #expect(defaults.engineConfiguration.serviceExtensionTimeBudget == 30)
        let budget = OpenUserNotificationsConfiguration.fromEnvironment(["OPENUN_SERVICE_EXTENSION_BUDGET": "12.5"])
        #expect(budget.engineConfiguration.serviceExtensionTimeBudget == 12.5)
        #expect(OpenUserNotificationsConfiguration.fromEnvironment(["OPENUN_SERVICE_EXTENSION_BUDGET": "-1"]).serviceExtensionTimeBudget == 30)
    }
}
