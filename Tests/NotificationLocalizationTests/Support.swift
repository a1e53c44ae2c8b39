import Foundation

/// A temporary app folder with localization tables, removed by `remove()`.
struct TemporaryBundle {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("l10n-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    /// Writes `<language>.lproj/Localizable.strings`.
    @discardableResult
    func strings(_ language: String, _ text: String) throws -> URL {
        try data(language, Data(text.utf8))
    }

    /// Writes `<language>.lproj/Localizable.strings` with these bytes.
    @discardableResult
    func data(_ language: String, _ data: Data) throws -> URL {
        let folder = url.appendingPathComponent("\(language).lproj", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("Localizable.strings")
        try data.write(to: file)
        return file
    }

    /// Writes `Localizable.xcstrings`.
    func catalog(_ json: String) throws {
        try Data(json.utf8).write(to: url.appendingPathComponent("Localizable.xcstrings"))
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A catalog with English source strings and Simplified Chinese translations.
let sampleCatalog = #"""
{
  "sourceLanguage" : "en",
  "strings" : {
    "greeting" : {
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "Hello, %@!" } },
        "zh-Hans" : { "stringUnit" : { "state" : "translated", "value" : "你好，%@！" } }
      }
    },
    "messages" : {
      "localizations" : {
        "en" : { "variations" : { "plural" : {
          "one" : { "stringUnit" : { "state" : "translated", "value" : "%d new message" } },
          "other" : { "stringUnit" : { "state" : "translated", "value" : "%d new messages" } }
        } } },
        "zh-Hans" : { "variations" : { "plural" : {
          "other" : { "stringUnit" : { "state" : "translated", "value" : "%d 条新消息" } }
        } } }
      }
    },
    "Only in source" : { },
    "OK" : { "shouldTranslate" : false }
  },
  "version" : "1.0"
}
"""#
