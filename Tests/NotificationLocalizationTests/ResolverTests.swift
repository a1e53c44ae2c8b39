import Foundation
import NotificationLocalization
import NotificationModel
import Testing

@Suite("Localization: the encoding")
struct EncodingTests {
    @Test("a value survives encoding and decoding, delimiters in its arguments included")
    func roundTrip() throws {
        let value = LocalizableString(
            key: "%@ said %d%%", arguments: [.string("a \u{10FF00}tricky\u{10FF01} \"name\""), .int(-3), .uint(.max), .double(1.5)],
            bundleDirectory: "/opt/app")
        let encoded = value.encoded
        #expect(encoded.unicodeScalars.first == LocalizableString.startDelimiter)
        #expect(encoded.unicodeScalars.last == LocalizableString.endDelimiter)
        #expect(encoded.unicodeScalars.filter { $0 == LocalizableString.startDelimiter }.count == 1)
        #expect(LocalizableString.decode(encoded) == value)
        // JSON, as stored and sent, keeps it exactly.
        let json = try JSONEncoder().encode(["title": encoded])
        #expect(try JSONDecoder().decode([String: String].self, from: json)["title"] == encoded)
    }

    @Test("a double JSON cannot hold is kept as its text")
    func nonFinite() throws {
        let value = LocalizableString(key: "%@ / %@", arguments: [.double(.infinity), .double(.nan), .int(1)])
        #expect(LocalizableString.decode(value.encoded)?.arguments == [.string("inf"), .string("nan"), .int(1)])
    }

    @Test("segments: plain text around encoded values; broken encodings stay plain text")
    func segments() {
        let one = LocalizableString(key: "a", bundleDirectory: "/b")
        let two = LocalizableString(key: "c", arguments: [.int(1)])
        #expect(LocalizableString.segments(of: "x " + one.encoded + " y " + two.encoded) == [
            .text("x "), .localizable(one), .text(" y "), .localizable(two),
        ])
        #expect(LocalizableString.segments(of: "plain") == [.text("plain")])
        #expect(LocalizableString.segments(of: "") == [])
        let broken = "\u{10FF00}not json\u{10FF01}"
        #expect(LocalizableString.segments(of: broken) == [.text(broken)])
        #expect(LocalizableString.segments(of: "open \u{10FF00} only") == [.text("open \u{10FF00} only")])
        #expect(LocalizableString.decode("x" + one.encoded) == nil)
        #expect(LocalizableString.decode(one.encoded) == one)
    }
}

@Suite("Localization: resolving")
struct ResolverTests {
    func makeBundle() throws -> TemporaryBundle {
        let bundle = try TemporaryBundle()
        try bundle.strings("en", #""Wake up!" = "Wake up!"; "%d new messages" = "%d new messages"; "sent" = "%1$@ sent %2$@";"#)
        try bundle.strings("zh-Hans", #""Wake up!" = "起床了！"; "%d new messages" = "%d 条新消息"; "sent" = "%2$@ 由 %1$@ 发送";"#)
        return bundle
    }

    @Test("the person's language picks the table; a region or codeset finds the language folder")
    func picksLanguage() throws {
        let bundle = try makeBundle()
        defer { bundle.remove() }
        let resolver = LocalizedStringResolver()
        let wake = LocalizableString(key: "Wake up!", bundleDirectory: bundle.path)
        #expect(resolver.resolve(wake, languages: ["en_US"]).text == "Wake up!")
        #expect(resolver.resolve(wake, languages: ["zh_CN.UTF-8"]).text == "起床了！")
        #expect(resolver.resolve(wake, languages: ["zh-Hans-CN"]).text == "起床了！")
        #expect(resolver.resolve(wake, languages: ["fr_FR", "zh_CN"]).text == "起床了！")
        // No table for the language: the development language.
        #expect(resolver.resolve(wake, languages: ["fr_FR.UTF-8"]).text == "Wake up!")
        #expect(resolver.resolve(wake, languages: ["C"]).text == "Wake up!")
        #expect(resolver.resolve(wake, languages: []).text == "Wake up!")
    }

    @Test("arguments are formatted with the language's format, reordered by position")
    func formats() throws {
        let bundle = try makeBundle()
        defer { bundle.remove() }
        let resolver = LocalizedStringResolver()
        let count = LocalizableString(key: "%d new messages", arguments: [.int(3)], bundleDirectory: bundle.path)
        #expect(resolver.resolve(count, languages: ["zh_CN"]).text == "3 条新消息")
        #expect(resolver.resolve(count, languages: ["en"]).text == "3 new messages")
        let sent = LocalizableString(key: "sent", arguments: [.string("Ann"), .string("a photo")], bundleDirectory: bundle.path)
        #expect(resolver.resolve(sent, languages: ["en"]).text == "Ann sent a photo")
        #expect(resolver.resolve(sent, languages: ["zh_CN"]).text == "a photo 由 Ann 发送")
    }

    @Test("a missing key shows the key, formatted, and is reported")
    func missingKey() throws {
        let bundle = try makeBundle()
        defer { bundle.remove() }
        let resolver = LocalizedStringResolver()
        let missing = resolver.resolve(LocalizableString(key: "Not translated", bundleDirectory: bundle.path), languages: ["zh_CN"])
        #expect(missing.text == "Not translated")
        #expect(missing.issues.map(\.kind) == [.missingKey])
        let formatted = resolver.resolve(
            LocalizableString(key: "%@ is late", arguments: [.string("Bob")], bundleDirectory: bundle.path), languages: ["en"])
        #expect(formatted.text == "Bob is late")
    }

    @Test("a missing bundle folder or one without tables shows the key")
    func missingTables() throws {
        let resolver = LocalizedStringResolver()
        let gone = resolver.resolve(LocalizableString(key: "Hi", bundleDirectory: "/nonexistent/\(UUID())"), languages: ["en"])
        #expect(gone.text == "Hi")
        #expect(gone.issues.map(\.kind) == [.missingBundle])
        let empty = try TemporaryBundle()
        defer { empty.remove() }
        #expect(!LocalizedStringResolver.hasTables(in: empty.path))
        let plain = resolver.resolve(LocalizableString(key: "Hi %d", arguments: [.int(2)], bundleDirectory: empty.path), languages: ["en"])
        #expect(plain.text == "Hi 2")
        #expect(plain.issues.isEmpty)
        #expect(resolver.resolve(LocalizableString(key: "No folder"), languages: ["en"]).text == "No folder")
    }

    @Test("a corrupt table is skipped and reported, without a crash; the other tables still answer")
    func corruptTable() throws {
        let bundle = try makeBundle()
        defer { bundle.remove() }
        try bundle.strings("zh-Hans", #""Wake up!" = "起床了！" "missing semicolon";"#)
        let resolver = LocalizedStringResolver()
        let wake = resolver.resolve(LocalizableString(key: "Wake up!", bundleDirectory: bundle.path), languages: ["zh_CN"])
        #expect(wake.text == "Wake up!")  // from en, the development language
        #expect(wake.issues.map(\.kind) == [.unreadableTable])
        #expect(wake.issues.first?.message.contains("zh-Hans.lproj/Localizable.strings") == true)

        try bundle.data("en", Data([0xFF, 0x00, 0xD8]))
        let neither = resolver.resolve(LocalizableString(key: "Wake up!", bundleDirectory: bundle.path), languages: ["zh_CN"])
        #expect(neither.text == "Wake up!")
        #expect(neither.issues.map(\.kind) == [.unreadableTable, .unreadableTable, .missingKey])

        try bundle.catalog("{ not json")
        let catalog = resolver.resolve(LocalizableString(key: "Wake up!", bundleDirectory: bundle.path), languages: ["zh_CN"])
        #expect(catalog.text == "Wake up!")
        #expect(catalog.issues.first?.message.contains("Localizable.xcstrings") == true)
    }

    @Test("a table changed on disk is read again")
    func cacheRefresh() throws {
        let bundle = try makeBundle()
        defer { bundle.remove() }
        let resolver = LocalizedStringResolver()
        let wake = LocalizableString(key: "Wake up!", bundleDirectory: bundle.path)
        #expect(resolver.resolve(wake, languages: ["zh_CN"]).text == "起床了！")
        let file = try bundle.strings("zh-Hans", #""Wake up!" = "快起床！！";"#)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: file.path)
        #expect(resolver.resolve(wake, languages: ["zh_CN"]).text == "快起床！！")
    }

    @Test("folders named zh_CN, zh-CN or English are found; Base.lproj is the last resort")
    func folderNames() throws {
        let bundle = try TemporaryBundle()
        defer { bundle.remove() }
        try bundle.strings("zh_CN", #""a" = "甲";"#)
        try bundle.strings("English", #""a" = "A"; "b" = "B";"#)
        try bundle.strings("Base", #""c" = "base c";"#)
        let resolver = LocalizedStringResolver()
        func text(_ key: String, _ languages: [String]) -> String {
            resolver.resolve(LocalizableString(key: key, bundleDirectory: bundle.path), languages: languages).text
        }
        #expect(text("a", ["zh_CN.UTF-8"]) == "甲")
        #expect(text("a", ["en_GB"]) == "A")
        #expect(text("b", ["zh_CN.UTF-8"]) == "B")  // missing in Chinese: the development language
        #expect(text("c", ["zh_CN.UTF-8"]) == "base c")
    }

    @Test("Info.plist's development region is the fallback language")
    func developmentRegion() throws {
        let bundle = try TemporaryBundle()
        defer { bundle.remove() }
        try bundle.strings("en", #""a" = "A";"#)
        try bundle.strings("de", #""a" = "Ä";"#)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleDevelopmentRegion": "de"], format: .xml, options: 0)
        try plist.write(to: bundle.url.appendingPathComponent("Info.plist"))
        let resolver = LocalizedStringResolver()
        #expect(resolver.resolve(LocalizableString(key: "a", bundleDirectory: bundle.path), languages: ["ja_JP"]).text == "Ä")
    }

    @Test("a string catalog: languages, plural's other form, the source language")
    func catalog() throws {
        let bundle = try TemporaryBundle()
        defer { bundle.remove() }
        try bundle.catalog(sampleCatalog)
        #expect(LocalizedStringResolver.hasTables(in: bundle.path))
        let resolver = LocalizedStringResolver()
        let greeting = LocalizableString(key: "greeting", arguments: [.string("Ann")], bundleDirectory: bundle.path)
        #expect(resolver.resolve(greeting, languages: ["zh_CN.UTF-8"]).text == "你好，Ann！")
        #expect(resolver.resolve(greeting, languages: ["en_US.UTF-8"]).text == "Hello, Ann!")
        #expect(resolver.resolve(greeting, languages: ["fr_FR"]).text == "Hello, Ann!")
        let messages = LocalizableString(key: "messages", arguments: [.int(2)], bundleDirectory: bundle.path)
        #expect(resolver.resolve(messages, languages: ["zh_CN"]).text == "2 条新消息")
        #expect(resolver.resolve(LocalizableString(key: "Only in source", bundleDirectory: bundle.path), languages: ["zh_CN"]).text == "Only in source")
    }

    @Test("a .lproj table comes before the catalog for the same language")
    func lprojBeforeCatalog() throws {
        let bundle = try TemporaryBundle()
        defer { bundle.remove() }
        try bundle.catalog(sampleCatalog)
        try bundle.strings("zh-Hans", #""greeting" = "嗨，%@";"#)
        let resolver = LocalizedStringResolver()
        let greeting = LocalizableString(key: "greeting", arguments: [.string("Ann")], bundleDirectory: bundle.path)
        #expect(resolver.resolve(greeting, languages: ["zh_CN"]).text == "嗨，Ann")
    }

    @Test("%% in a body: the resolved text's % is doubled so the body's printf rule shows it once")
    func percentInBody() throws {
        let bundle = try TemporaryBundle()
        defer { bundle.remove() }
        try bundle.strings("en", #""done" = "%d%% done"; "sure" = "100%% sure";"#)
        let resolver = LocalizedStringResolver()
        var payload = NotificationPayload()
        let done = LocalizableString(key: "done", arguments: [.int(50)], bundleDirectory: bundle.path).encoded
        payload.title = done
        payload.body = "Upload: " + done + " (50%% of quota)"
        payload.subtitle = LocalizableString(key: "sure", bundleDirectory: bundle.path).encoded
        let (resolved, issues) = resolver.resolve(payload, languages: ["en"])
        #expect(issues.isEmpty)
        #expect(resolved.title == "50% done")
        #expect(resolved.subtitle == "100% sure")
        // The literal text around the segment keeps its own escaping.
        #expect(resolved.body == "Upload: 50%% done (50%% of quota)")
    }

    @Test("an argument that is itself a localizable string is resolved too")
    func nestedArgument() throws {
        let bundle = try makeBundle()
        defer { bundle.remove() }
        let inner = LocalizableString(key: "Wake up!", bundleDirectory: bundle.path).encoded
        let outer = LocalizableString(key: "sent", arguments: [.string("Ann"), .string(inner)], bundleDirectory: bundle.path)
        #expect(LocalizedStringResolver().resolve(outer, languages: ["zh_CN"]).text == "起床了！ 由 Ann 发送")
    }
}
