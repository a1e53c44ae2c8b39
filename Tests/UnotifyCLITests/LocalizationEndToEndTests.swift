import Foundation
import Testing

/// An app folder with English and Simplified Chinese `Localizable.strings`.
private func makeAppFolder(in folder: URL) throws -> URL {
    let app = folder.appendingPathComponent("app", isDirectory: true)
    for (language, text) in [
        ("en", #""wake.title" = "Wake up!"; "wake.body" = "%d minutes to %@"; "charged" = "%d%% charged";"#),
        ("zh-Hans", #""wake.title" = "起床了！"; "wake.body" = "距离%2$@还有 %1$d 分钟"; "charged" = "已充电 %d%%";"#),
    ] {
        let lproj = app.appendingPathComponent("\(language).lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
    }
    return app
}

/// The locale variables of a process, all set so that the test's own environment does not leak in.
private func locale(_ lang: String) -> [String: String] {
    ["LANG": lang, "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": ""]
}

/// Two processes in two languages: the one that schedules and the one that delivers.
@Suite("unotify end to end: localization", .serialized)
struct LocalizationEndToEndTests {
    @Test("scheduled under LANG=en_US.UTF-8, `watch` under LANG=zh_CN.UTF-8 prints the Chinese strings")
    func scheduleInEnglishDeliverInChinese() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = try makeAppFolder(in: folder)
        let base = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        _ = try await runToEnd(
            [
                "add", "--in", "2s", "--id", "wake", "--bundle-dir", app.path, "--title-key", "wake.title",
                "--body-key", "wake.body", "--body-arg", "5", "--body-arg", "7:00",
            ], environment: base.merging(locale("en_US.UTF-8")) { $1 })
        _ = try await runToEnd(
            ["add", "--in", "2s", "--id", "battery", "--bundle-dir", app.path, "--title", "Battery", "--body-key", "charged",
             "--body-arg", "80"],
            environment: base.merging(locale("en_US.UTF-8")) { $1 })

        let watch = try RunningCommand(["watch", "--for", "10"], environment: base.merging(locale("zh_CN.UTF-8")) { $1 })
        defer { Task { await watch.kill9() } }
        let shown = await watch.wait(upTo: 10) { out, _ in out.contains("│ 起床了！") && out.contains("│ 已充电") }
        #expect(shown, "stdout: \(watch.stdout)\nstderr: \(watch.stderr)")
        #expect(watch.stdout.contains("│ 距离7:00还有 5 分钟"))
        // The body's printf rule shows the formatted % once.
        #expect(watch.stdout.contains("│ 已充电 80%\n"))
        #expect(!watch.stdout.contains("Wake up!"))

        // What was delivered keeps the Chinese text.
        let delivered = try await runToEnd(["delivered", "--json"], environment: base.merging(locale("en_US.UTF-8")) { $1 })
        #expect(delivered.contains("起床了！"))
    }

    @Test("the same request under LANG=C is delivered in the development language")
    func posixLocale() async throws {
        let (store, folder) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = try makeAppFolder(in: folder)
        let base = ["OPENUN_STORE": store, "OPENUN_MODE": "embedded"]
        _ = try await runToEnd(
            ["add", "--in", "1s", "--id", "wake", "--bundle-dir", app.path, "--title-key", "wake.title"],
            environment: base.merging(locale("zh_CN.UTF-8")) { $1 })
        let watch = try RunningCommand(["watch", "--for", "8"], environment: base.merging(locale("C")) { $1 })
        defer { Task { await watch.kill9() } }
        #expect(await watch.wait(upTo: 8) { out, _ in out.contains("│ Wake up!") }, "stdout: \(watch.stdout)")
    }
}
