import Foundation
import NotificationLocalization
import Testing

@Suite("Localization: .strings files")
struct StringsFileTests {
    @Test("entries, both comment styles, unquoted words and a key alone")
    func entries() throws {
        let text = #"""
            /* The title. */
            "Wake up!" = "起床了！";
            // A line comment
            greeting = "Hello";   /* trailing */
            "alone";
            "spaced"    =
                "value with = and ; inside"  ;
            "Wake up!" = "醒醒！"; // a later entry wins
            """#
        let table = try StringsFile.parse(text: text)
        #expect(table == [
            "Wake up!": "醒醒！", "greeting": "Hello", "alone": "alone", "spaced": "value with = and ; inside",
        ])
    }

    @Test("escapes: \\n \\t \\\" \\\\ \\' \\U1234, surrogate pairs and octal")
    func escapes() throws {
        let text = #"""
            "a" = "line\nnext\ttab";
            "b" = "say \"hi\" \\ it\'s";
            "c" = "\U4E2D\u6587";
            "d" = "\UD83D\UDE00";
            "e" = "\101\102";
            "f" = "unpaired \UD83D!";
            """#
        let table = try StringsFile.parse(text: text)
        #expect(table["a"] == "line\nnext\ttab")
        #expect(table["b"] == #"say "hi" \ it's"#)
        #expect(table["c"] == "中文")
        #expect(table["d"] == "😀")
        #expect(table["e"] == "AB")
        #expect(table["f"] == "unpaired \u{FFFD}!")
    }

    @Test("a dictionary in braces, as old-style property lists write it")
    func braces() throws {
        #expect(try StringsFile.parse(text: #"{ "k" = "v"; }"#) == ["k": "v"])
        #expect(throws: StringsFile.ParseError.self) { try StringsFile.parse(text: #"{ "k" = "v"; "#) }
    }

    @Test("UTF-8 with and without a byte-order mark, UTF-16 in both orders with one and without one")
    func encodings() throws {
        let text = "\"k\" = \"中文 é\";"
        let expected = ["k": "中文 é"]
        #expect(try StringsFile.parse(Data(text.utf8)) == expected)
        #expect(try StringsFile.parse(Data([0xEF, 0xBB, 0xBF] + Array(text.utf8))) == expected)
        let little = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try StringsFile.parse(Data([0xFF, 0xFE] + little)) == expected)
        #expect(try StringsFile.parse(Data([0xFE, 0xFF] + big)) == expected)
        #expect(try StringsFile.parse(Data(little)) == expected)
        #expect(try StringsFile.parse(Data(big)) == expected)
    }

    @Test("an XML property list (what Xcode may compile .strings to)")
    func xmlPropertyList() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>Wake up!</key><string>起床了！</string></dict></plist>
            """
        #expect(try StringsFile.parse(Data(xml.utf8)) == ["Wake up!": "起床了！"])
    }

    @Test("syntax errors name their line", arguments: [
        ("\"a\" = \"b\";\n\"c\" = \"d\"\n\"e\" = \"f\";", 3),
        ("\"a\" = \"b\";\n\n\"c\" = \"never closed;\n", 3),
        ("/* open comment\n\"a\" = \"b\";", 1),
        ("\"a\" \"b\";", 1),
        ("\"a\" = ;", 1),
        ("\"a\" = \"b\"", 1),
    ])
    func errors(text: String, line: Int) {
        #expect(performing: { try StringsFile.parse(text: text) }, throws: { ($0 as? StringsFile.ParseError)?.line == line })
    }

    @Test("bytes that are no text are an error, not a crash")
    func binaryGarbage() {
        #expect(throws: StringsFile.ParseError.self) { try StringsFile.parse(Data([0xC3, 0x28, 0x01])) }
        #expect(throws: StringsFile.ParseError.self) { try StringsFile.parse(Data("bplist00garbage".utf8)) }
    }
}

@Suite("Localization: string catalogs")
struct StringCatalogTests {
    @Test("values by language, the source language, the plural's other form, untranslated keys")
    func values() throws {
        let catalog = try StringCatalog.parse(Data(sampleCatalog.utf8))
        #expect(catalog.sourceLanguage == "en")
        #expect(catalog.value(forKey: "greeting", language: "zh-hans") == "你好，%@！")
        #expect(catalog.value(forKey: "greeting", language: "zh_Hans") == "你好，%@！")
        #expect(catalog.value(forKey: "greeting", language: "en") == "Hello, %@!")
        #expect(catalog.value(forKey: "greeting", language: "fr") == nil)
        #expect(catalog.value(forKey: "messages", language: "en") == "%d new messages")
        #expect(catalog.value(forKey: "messages", language: "zh-hans") == "%d 条新消息")
        #expect(catalog.value(forKey: "Only in source", language: "en") == "Only in source")
        #expect(catalog.value(forKey: "Only in source", language: "zh-hans") == nil)
        #expect(catalog.value(forKey: "OK", language: "zh-hans") == "OK")
        #expect(catalog.value(forKey: "missing", language: "en") == nil)
        #expect(catalog.languages == ["en", "zh-Hans"])
    }

    @Test("a catalog that is not JSON, or has no strings, is an error")
    func corrupt() {
        #expect(throws: StringCatalog.ParseError.self) { try StringCatalog.parse(Data("{ \"strings\": ".utf8)) }
        #expect(throws: StringCatalog.ParseError.self) { try StringCatalog.parse(Data("[1]".utf8)) }
        #expect(throws: StringCatalog.ParseError.self) { try StringCatalog.parse(Data("{\"version\": \"1.0\"}".utf8)) }
    }
}
