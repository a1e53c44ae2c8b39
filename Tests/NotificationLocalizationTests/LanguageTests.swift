import NotificationLocalization
import Testing

@Suite("Localization: languages")
struct LanguageTests {
    @Test("POSIX locale names and language identifiers become ordered candidates", arguments: [
        ("zh_CN.UTF-8", ["zh-hans-cn", "zh-hans", "zh-cn", "zh"]),
        ("zh_TW.UTF-8", ["zh-hant-tw", "zh-hant", "zh-tw"]),
        ("zh-Hant", ["zh-hant"]),
        ("zh", ["zh-hans", "zh"]),
        ("en_US", ["en-us", "en"]),
        ("en_US.UTF-8", ["en-us", "en"]),
        ("de_DE@euro", ["de-de", "de"]),
        ("sr_RS@latin", ["sr-latn-rs", "sr-latn", "sr-rs", "sr"]),
        ("es-419", ["es-419", "es"]),
        ("pt_BR", ["pt-br", "pt"]),
        ("English", ["en"]),
        ("fr", ["fr"]),
    ])
    func candidates(name: String, expected: [String]) throws {
        #expect(try #require(LanguageTag(name)).candidates == expected)
    }

    @Test("C, POSIX and empty names are no language")
    func posix() {
        #expect(LanguageTag("C") == nil)
        #expect(LanguageTag("C.UTF-8") == nil)
        #expect(LanguageTag("POSIX") == nil)
        #expect(LanguageTag("") == nil)
        #expect(LanguageTag.isPOSIXLocale("C.UTF-8"))
        #expect(!LanguageTag.isPOSIXLocale("ca_ES"))
    }

    @Test("folder names normalize without regard to case, separators and old English names")
    func normalized() {
        #expect(LanguageTag.normalized("zh_Hans") == "zh-hans")
        #expect(LanguageTag.normalized("zh-CN") == "zh-cn")
        #expect(LanguageTag.normalized("English") == "en")
        #expect(LanguageTag.normalized("Base") == "base")
    }

    @Test("the search order: each preference's candidates, then the development language, then Base")
    func searchOrder() {
        #expect(LanguageTag.searchOrder(preferences: ["zh_CN.UTF-8", "en_US"], developmentLanguage: "en") == [
            "zh-hans-cn", "zh-hans", "zh-cn", "zh", "en-us", "en", "base",
        ])
        #expect(LanguageTag.searchOrder(preferences: [], developmentLanguage: "fr") == ["fr", "base"])
        // C stands for the development language, and what follows it is not looked at.
        #expect(LanguageTag.searchOrder(preferences: ["C", "zh_CN"], developmentLanguage: "en") == ["en", "base"])
        #expect(LanguageTag.searchOrder(preferences: ["de", "POSIX", "zh_CN"], developmentLanguage: "en") == ["de", "en", "base"])
    }

    @Test("the environment: LC_ALL, else LC_MESSAGES, else LANG; then LANGUAGE; C alone ignores LANGUAGE")
    func environment() {
        #expect(UserLanguages.fromEnvironment(["LANG": "zh_CN.UTF-8"]) == ["zh_CN.UTF-8"])
        #expect(UserLanguages.fromEnvironment(["LANG": "en_US.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"]) == ["fr_FR.UTF-8"])
        #expect(UserLanguages.fromEnvironment(["LANG": "en_US", "LC_MESSAGES": "fr_FR", "LC_ALL": "de_DE"]) == ["de_DE"])
        #expect(UserLanguages.fromEnvironment(["LANG": "en_US", "LC_ALL": ""]) == ["en_US"])
        #expect(UserLanguages.fromEnvironment(["LANG": "zh_CN.UTF-8", "LANGUAGE": "en_US:en::"]) == ["zh_CN.UTF-8", "en_US", "en"])
        #expect(UserLanguages.fromEnvironment(["LANGUAGE": "ja"]) == ["ja"])
        #expect(UserLanguages.fromEnvironment(["LANG": "C.UTF-8", "LANGUAGE": "zh_CN"]) == ["C.UTF-8"])
        #expect(UserLanguages.fromEnvironment([:]) == [])
    }
}
